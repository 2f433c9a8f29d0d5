// gemm, gemver, gesummv, symm, syr2k, syrk, trmm (PolyBench/C 4.2.1 linear-algebra/blas) with memjit's builder.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F64 = ElementType::F64;
using Options = codegen::FunctionOptions;


Error buildGemm(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), C = w.arg(2), A = w.arg(3), B = w.arg(4);
  Value NI = w.b.dim(C, 0), NJ = w.b.dim(C, 1), NK = w.b.dim(A, 1);
  // k by fours: each C[i][j] is loaded and stored once per four products instead of once per product, its
  // additions still in k order; the remainder of k one at a time.
  w.outer(w.zero, NI, [&](Value i) {
    w.loop(w.zero, NJ, [&](Value j) { w.st(w.ld(C, {i, j}) * beta, C, {i, j}); });
    Value kFour = NK / 4 * 4;
    w.b.forLoop(w.zero, kFour, w.idx(4), [&](Value kk) {
      Value a[4];
      for (int l = 0; l < 4; ++l) a[l] = alpha * w.ld(A, {i, kk + l});
      w.loop(w.zero, NJ, [&](Value j) {
        Value c = w.ld(C, {i, j});
        for (int l = 0; l < 4; ++l) c = c + a[l] * w.ld(B, {kk + l, j});
        w.st(c, C, {i, j});
      });
    });
    w.loop(kFour, NK, [&](Value kk) {
      Value a = alpha * w.ld(A, {i, kk});
      w.loop(w.zero, NJ, [&](Value j) { w.st(w.ld(C, {i, j}) + a * w.ld(B, {kk, j}), C, {i, j}); });
    });
  });
  return w.finish();
}

Error buildGemver(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), A = w.arg(2), u1 = w.arg(3), v1 = w.arg(4), u2 = w.arg(5),
        v2 = w.arg(6), W = w.arg(7), x = w.arg(8), y = w.arg(9), z = w.arg(10);
  Value N = w.b.dim(A, 0);
  w.outer(w.zero, N, [&](Value i) {
    Value a1 = w.ld(u1, {i}), a2 = w.ld(u2, {i});
    w.loop(w.zero, N, [&](Value j) {
      w.st(w.ld(A, {i, j}) + a1 * w.ld(v1, {j}) + a2 * w.ld(v2, {j}), A, {i, j});
    });
  });
  // x reads A down its columns: 8 i's summed together read it along its rows.
  w.jam(
      w.zero, N, N, 8, [&](Value i) { return w.ld(x, {i}); },
      [&](Value i, Value j, Value acc) { return acc + beta * w.ld(A, {j, i}) * w.ld(y, {j}); },
      [&](Value i, Value s) { w.st(s, x, {i}); }, true);
  w.loop(w.zero, N, [&](Value i) { w.st(w.ld(x, {i}) + w.ld(z, {i}), x, {i}); });
  // 8 rows' sums together: 8 independent chains of additions instead of one.
  w.jam(
      w.zero, N, N, 8, [&](Value i) { return w.ld(W, {i}); },
      [&](Value i, Value j, Value acc) { return acc + alpha * w.ld(A, {i, j}) * w.ld(x, {j}); },
      [&](Value i, Value s) { w.st(s, W, {i}); }, true);
  return w.finish();
}

Error buildGesummv(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), A = w.arg(2), B = w.arg(3), tmp = w.arg(4), x = w.arg(5), y = w.arg(6);
  Value N = w.b.dim(A, 0);
  w.outer(w.zero, N, [&](Value i) {
    auto r = w.carry(w.zero, N, {w.f64(0.0), w.f64(0.0)}, [&](Value j, const std::vector<Value>& c) {
      Value xj = w.ld(x, {j});
      return std::vector<Value>{w.ld(A, {i, j}) * xj + c[0], w.ld(B, {i, j}) * xj + c[1]};
    });
    w.st(r[0], tmp, {i});
    w.st(alpha * r[0] + beta * r[1], y, {i});
  });
  return w.finish();
}

Error buildSymm(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), C = w.arg(2), A = w.arg(3), B = w.arg(4);
  Value M = w.b.dim(C, 0), N = w.b.dim(C, 1);
  // 8 j's together (KernelWriter::jam): B and C are read along their rows; each C element still gets its updates in
  // PolyBench's order (over i, then the final one).
  w.loop(w.zero, M, [&](Value i) {
    Value aii = w.ld(A, {i, i});
    w.jam(
        w.zero, N, i, 8, [&](Value) { return w.f64(0.0); },
        [&](Value j, Value kk, Value acc) {
          Value aik = w.ld(A, {i, kk});
          w.st(w.ld(C, {kk, j}) + alpha * w.ld(B, {i, j}) * aik, C, {kk, j});
          return acc + w.ld(B, {kk, j}) * aik;
        },
        [&](Value j, Value temp2) {
          Value bij = w.ld(B, {i, j});
          w.st(beta * w.ld(C, {i, j}) + alpha * bij * aii + alpha * temp2, C, {i, j});
        });
  });
  return w.finish();
}

// PolyBench's i-k-j nest reads A and B down their columns (A[j][k] for consecutive j); here each C[i][j] sums its
// k terms in a register, 8 j's at a time (KernelWriter::jam): the same additions in the same order per element,
// read along the rows. See docs/benchmarks.md.
Error buildSyr2k(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), C = w.arg(2), A = w.arg(3), B = w.arg(4);
  Value N = w.b.dim(C, 0), M = w.b.dim(A, 1);
  w.outer(w.zero, N, [&](Value i) {
    w.jam(
        w.zero, N, M, 8, [&](Value j) { return w.ld(C, {i, j}) * beta; },
        [&](Value j, Value kk, Value acc) {
          return acc + (w.ld(A, {j, kk}) * alpha * w.ld(B, {i, kk}) + w.ld(B, {j, kk}) * alpha * w.ld(A, {i, kk}));
        },
        [&](Value j, Value acc) { w.st(acc, C, {i, j}); });
  });
  return w.finish();
}

// As syr2k: each C[i][j] of the lower triangle sums its k terms in a register, 8 j's at a time.
Error buildSyrk(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), C = w.arg(2), A = w.arg(3);
  Value N = w.b.dim(C, 0), M = w.b.dim(A, 1);
  w.outer(w.zero, N, [&](Value i) {
    w.jam(
        w.zero, i + 1, M, 8, [&](Value j) { return w.ld(C, {i, j}) * beta; },
        [&](Value j, Value kk, Value acc) { return acc + alpha * w.ld(A, {i, kk}) * w.ld(A, {j, kk}); },
        [&](Value j, Value acc) { w.st(acc, C, {i, j}); });
  });
  return w.finish();
}

Error buildTrmm(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), A = w.arg(1), B = w.arg(2);
  Value M = w.b.dim(B, 0), N = w.b.dim(B, 1);
  // 8 j's summed together read B along its rows.
  w.loop(w.zero, M, [&](Value i) {
    w.jamFrom(
        w.zero, N, i + 1, M, 8, [&](Value j) { return w.ld(B, {i, j}); },
        [&](Value j, Value kk, Value acc) { return acc + w.ld(A, {kk, i}) * w.ld(B, {kk, j}); },
        [&](Value j, Value s) { w.st(alpha * s, B, {i, j}); });
  });
  return w.finish();
}

// PolyBench's `(DATA_TYPE) (expr) / d`: an int expression converted, then divided.
double ratio(long v, long d) { return double(v) / double(d); }

void initGemm(Data& d) {
  const int ni = int(d.p[0]), nj = int(d.p[1]), nk = int(d.p[2]);
  d.s = {1.5, 1.2};
  double *C = d.f64(0), *A = d.f64(1), *B = d.f64(2);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) C[i * nj + j] = ratio(i * j % ni, ni);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nk; j++) A[i * nk + j] = ratio(i * (j + 1) % nk, nk);
  for (int i = 0; i < nk; i++)
    for (int j = 0; j < nj; j++) B[i * nj + j] = ratio(i * (j + 2) % nj, nj);
}

void initGemver(Data& d) {
  const int n = int(d.p[0]);
  d.s = {1.5, 1.2};
  const double fn = double(n);
  double *A = d.f64(0), *u1 = d.f64(1), *v1 = d.f64(2), *u2 = d.f64(3), *v2 = d.f64(4), *w = d.f64(5),
         *x = d.f64(6), *y = d.f64(7), *z = d.f64(8);
  for (int i = 0; i < n; i++) {
    u1[i] = i;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (int j = 0; j < n; j++) A[i * n + j] = ratio(i * j % n, n);
  }
}

void initGesummv(Data& d) {
  const int n = int(d.p[0]);
  d.s = {1.5, 1.2};
  double *A = d.f64(0), *B = d.f64(1), *x = d.f64(3);
  for (int i = 0; i < n; i++) {
    x[i] = ratio(i % n, n);
    for (int j = 0; j < n; j++) A[i * n + j] = B[i * n + j] = ratio(i * j % n, n);
  }
}

void initSymm(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  d.s = {1.5, 1.2};
  double *C = d.f64(0), *A = d.f64(1), *B = d.f64(2);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      C[i * n + j] = ratio((i + j) % 100, m);
      B[i * n + j] = ratio((n + i - j) % 100, m);
    }
  for (int i = 0; i < m; i++) {
    for (int j = 0; j <= i; j++) A[i * m + j] = ratio((i + j) % 100, m);
    for (int j = i + 1; j < m; j++) A[i * m + j] = -999;
  }
}

void initSyr2k(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  d.s = {1.5, 1.2};
  double *C = d.f64(0), *A = d.f64(1), *B = d.f64(2);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      A[i * m + j] = ratio(i * j % n, n);
      B[i * m + j] = ratio(i * j % m, m);
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) C[i * n + j] = ratio(i * j % n, m);
}

void initSyrk(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  d.s = {1.5, 1.2};
  double *C = d.f64(0), *A = d.f64(1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) A[i * m + j] = ratio(i * j % n, n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) C[i * n + j] = ratio(i * j % m, m);
}

void initTrmm(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  d.s = {1.5};
  double *A = d.f64(0), *B = d.f64(1);
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < i; j++) A[i * m + j] = ratio((i + j) % m, m);
    A[i * m + i] = 1.0;
    for (int j = 0; j < n; j++) B[i * n + j] = ratio((n + (i - j)) % n, n);
  }
}

}  // namespace

std::vector<Kernel> blas() {
  const std::array<std::vector<std::int64_t>, 4> mn{{{20, 30}, {60, 80}, {200, 240}, {1000, 1200}}};
  const std::vector<ScalarSpec> alphaBeta{{"alpha", F64}, {"beta", F64}};
  return {
      {.name = "gemm",
       .sizeNames = {"NI", "NJ", "NK"},
       .sizes = {{{20, 25, 30}, {60, 70, 80}, {200, 220, 240}, {1000, 1100, 1200}}},
       .scalars = alphaBeta,
       .arrays = {{"C", F64, {0, 1}, true}, {"A", F64, {0, 2}}, {"B", F64, {2, 1}}},
       .init = initGemm,
       .build = buildGemm,
       .gcc = polybench_gemm_gcc,
       .clang = polybench_gemm_clang,
       .omp = polybench_gemm_omp},
      {.name = "gemver",
       .sizeNames = {"N"},
       .sizes = {{{40}, {120}, {400}, {2000}}},
       .scalars = alphaBeta,
       .arrays = {{"A", F64, {0, 0}}, {"u1", F64, {0}}, {"v1", F64, {0}}, {"u2", F64, {0}}, {"v2", F64, {0}},
                  {"w", F64, {0}, true}, {"x", F64, {0}}, {"y", F64, {0}}, {"z", F64, {0}}},
       .init = initGemver,
       .build = buildGemver,
       .gcc = polybench_gemver_gcc,
       .clang = polybench_gemver_clang,
       .omp = polybench_gemver_omp},
      {.name = "gesummv",
       .sizeNames = {"N"},
       .sizes = {{{30}, {90}, {250}, {1300}}},
       .scalars = alphaBeta,
       .arrays = {{"A", F64, {0, 0}}, {"B", F64, {0, 0}}, {"tmp", F64, {0}}, {"x", F64, {0}}, {"y", F64, {0}, true}},
       .init = initGesummv,
       .build = buildGesummv,
       .gcc = polybench_gesummv_gcc,
       .clang = polybench_gesummv_clang,
       .omp = polybench_gesummv_omp},
      {.name = "symm",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = alphaBeta,
       .arrays = {{"C", F64, {0, 1}, true}, {"A", F64, {0, 0}}, {"B", F64, {0, 1}}},
       .init = initSymm,
       .build = buildSymm,
       .gcc = polybench_symm_gcc,
       .clang = polybench_symm_clang},
      {.name = "syr2k",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = alphaBeta,
       .arrays = {{"C", F64, {1, 1}, true}, {"A", F64, {1, 0}}, {"B", F64, {1, 0}}},
       .init = initSyr2k,
       .build = buildSyr2k,
       .gcc = polybench_syr2k_gcc,
       .clang = polybench_syr2k_clang,
       .omp = polybench_syr2k_omp},
      {.name = "syrk",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = alphaBeta,
       .arrays = {{"C", F64, {1, 1}, true}, {"A", F64, {1, 0}}},
       .init = initSyrk,
       .build = buildSyrk,
       .gcc = polybench_syrk_gcc,
       .clang = polybench_syrk_clang,
       .omp = polybench_syrk_omp},
      {.name = "trmm",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = {{"alpha", F64}},
       .arrays = {{"A", F64, {0, 0}}, {"B", F64, {0, 1}, true}},
       .init = initTrmm,
       .build = buildTrmm,
       .gcc = polybench_trmm_gcc,
       .clang = polybench_trmm_clang},
  };
}

}  // namespace memjit::polybench
