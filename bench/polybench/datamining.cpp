// correlation and covariance (PolyBench/C 4.2.1 datamining) with memjit's kernel builder.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F64 = ElementType::F64;

// Sizes M, N; data is N x M.
void initData(Data& d, bool correlation) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  double* data = d.f64(0);
  d.s[0] = double(n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      data[i * m + j] = correlation ? (double)(i * j) / m + i : ((double)i * j) / m;
}

// mean[j] = sum over i of data[i][j], divided by float_n.
void columnMeans(KernelWriter& w, Value data, Value mean, Value floatN, Value M, Value N) {
  w.outer(w.zero, M, [&](Value j) {
    Value s = w.sum(w.zero, N, w.f64(0.0), [&](Value i, Value acc) { return acc + w.ld(data, {i, j}); });
    w.st(s / floatN, mean, {j});
  });
}

Error buildCorrelation(codegen::Module& m, const std::string& name, const Kernel& k,
                       const codegen::FunctionOptions& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  auto& b = w.b;
  Value floatN = w.arg(0), data = w.arg(1), corr = w.arg(2), mean = w.arg(3), stddev = w.arg(4);
  Value N = b.dim(data, 0), M = b.dim(data, 1);
  columnMeans(w, data, mean, floatN, M, N);
  w.outer(w.zero, M, [&](Value j) {
    Value mj = w.ld(mean, {j});
    Value s = w.sum(w.zero, N, w.f64(0.0), [&](Value i, Value acc) {
      Value dv = w.ld(data, {i, j});
      return acc + (dv - mj) * (dv - mj);
    });
    Value sd = b.sqrt(s / floatN);
    w.st(b.select(sd <= 0.1, w.f64(1.0), sd), stddev, {j});
  });
  w.outer(w.zero, N, [&](Value i) {
    w.loop(w.zero, M, [&](Value j) {
      Value v = w.ld(data, {i, j}) - w.ld(mean, {j});
      w.st(v / (b.sqrt(floatN) * w.ld(stddev, {j})), data, {i, j});
    });
  });
  w.outer(w.zero, M - 1, [&](Value i) {
    w.st(w.f64(1.0), corr, {i, i});
    w.jam(
        i + 1, M, N, 8, [&](Value) { return w.f64(0.0); },
        [&](Value j, Value kk, Value acc) { return acc + w.ld(data, {kk, i}) * w.ld(data, {kk, j}); },
        [&](Value j, Value c) {
          w.st(c, corr, {i, j});
          w.st(c, corr, {j, i});
        });
  });
  w.st(w.f64(1.0), corr, {M - 1, M - 1});
  return w.finish();
}

Error buildCovariance(codegen::Module& m, const std::string& name, const Kernel& k,
                      const codegen::FunctionOptions& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  auto& b = w.b;
  Value floatN = w.arg(0), data = w.arg(1), cov = w.arg(2), mean = w.arg(3);
  Value N = b.dim(data, 0), M = b.dim(data, 1);
  columnMeans(w, data, mean, floatN, M, N);
  w.outer(w.zero, N, [&](Value i) {
    w.loop(w.zero, M, [&](Value j) { w.st(w.ld(data, {i, j}) - w.ld(mean, {j}), data, {i, j}); });
  });
  w.outer(w.zero, M, [&](Value i) {
    w.jam(
        i, M, N, 8, [&](Value) { return w.f64(0.0); },
        [&](Value j, Value kk, Value acc) { return acc + w.ld(data, {kk, i}) * w.ld(data, {kk, j}); },
        [&](Value j, Value c) {
          c = c / (floatN - 1.0);
          w.st(c, cov, {i, j});
          w.st(c, cov, {j, i});
        });
  });
  return w.finish();
}

}  // namespace

std::vector<Kernel> datamining() {
  const std::array<std::vector<std::int64_t>, 4> sizes{{{28, 32}, {80, 100}, {240, 260}, {1200, 1400}}};
  return {
      {.name = "correlation",
       .sizeNames = {"M", "N"},
       .sizes = sizes,
       .scalars = {{"float_n", F64}},
       .arrays = {{"data", F64, {1, 0}}, {"corr", F64, {0, 0}, true}, {"mean", F64, {0}}, {"stddev", F64, {0}}},
       .init = [](Data& d) { initData(d, true); },
       .build = buildCorrelation,
       .gcc = polybench_correlation_gcc,
       .clang = polybench_correlation_clang,
       .omp = polybench_correlation_omp},
      {.name = "covariance",
       .sizeNames = {"M", "N"},
       .sizes = sizes,
       .scalars = {{"float_n", F64}},
       .arrays = {{"data", F64, {1, 0}}, {"cov", F64, {0, 0}, true}, {"mean", F64, {0}}},
       .init = [](Data& d) { initData(d, false); },
       .build = buildCovariance,
       .gcc = polybench_covariance_gcc,
       .clang = polybench_covariance_clang,
       .omp = polybench_covariance_omp},
  };
}

}  // namespace memjit::polybench
