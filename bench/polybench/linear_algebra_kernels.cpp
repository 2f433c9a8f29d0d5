// 2mm, 3mm, atax, bicg, doitgen, mvt (PolyBench/C 4.2.1 linear-algebra/kernels) with memjit's builder.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F64 = ElementType::F64;
using Options = codegen::FunctionOptions;

// out[i][j] = init(i, j) + sum over k < K of left(i, k) * B[k][j], the i-j-k nest PolyBench's matrix products use,
// with 8 j's summed together (KernelWriter::jam): B is read along its rows, each element's sum in k order.
void product(KernelWriter& w, Value out, Value rows, Value cols, Value K, const std::function<Value(Value, Value)>& init,
             const std::function<Value(Value, Value)>& left, Value B) {
  w.outer(w.zero, rows, [&](Value i) {
    w.jam(
        w.zero, cols, K, 8, [&](Value j) { return init(i, j); },
        [&](Value j, Value kk, Value acc) { return acc + left(i, kk) * w.ld(B, {kk, j}); },
        [&](Value j, Value acc) { w.st(acc, out, {i, j}); });
  });
}

Error build2mm(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value alpha = w.arg(0), beta = w.arg(1), tmp = w.arg(2), A = w.arg(3), B = w.arg(4), C = w.arg(5), D = w.arg(6);
  Value NI = w.b.dim(A, 0), NK = w.b.dim(A, 1), NJ = w.b.dim(B, 1), NL = w.b.dim(D, 1);
  product(w, tmp, NI, NJ, NK, [&](Value, Value) { return w.f64(0.0); },
          [&](Value i, Value kk) { return alpha * w.ld(A, {i, kk}); }, B);
  product(w, D, NI, NL, NJ, [&](Value i, Value j) { return w.ld(D, {i, j}) * beta; },
          [&](Value i, Value kk) { return w.ld(tmp, {i, kk}); }, C);
  return w.finish();
}

Error build3mm(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value E = w.arg(0), A = w.arg(1), B = w.arg(2), F = w.arg(3), C = w.arg(4), D = w.arg(5), G = w.arg(6);
  Value NI = w.b.dim(A, 0), NK = w.b.dim(A, 1), NJ = w.b.dim(B, 1), NM = w.b.dim(C, 1), NL = w.b.dim(D, 1);
  auto zero = [&](Value, Value) { return w.f64(0.0); };
  product(w, E, NI, NJ, NK, zero, [&](Value i, Value kk) { return w.ld(A, {i, kk}); }, B);
  product(w, F, NJ, NL, NM, zero, [&](Value i, Value kk) { return w.ld(C, {i, kk}); }, D);
  product(w, G, NI, NL, NJ, zero, [&](Value i, Value kk) { return w.ld(E, {i, kk}); }, F);
  return w.finish();
}

Error buildAtax(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), x = w.arg(1), y = w.arg(2), tmp = w.arg(3);
  Value M = w.b.dim(A, 0), N = w.b.dim(A, 1);
  w.loop(w.zero, N, [&](Value i) { w.st(w.f64(0.0), y, {i}); });
  // Rows in blocks of 8: their tmp sums together (8 independent chains instead of one), then y updated by the 8
  // rows in their order (each y[j] gets PolyBench's additions in PolyBench's order); the rest one row at a time.
  const std::int64_t rows = 8;
  Value full = M / rows * rows;
  w.b.forLoop(w.zero, full, w.idx(rows), [&](Value i0) {
    std::vector<Value> init(rows, w.f64(0.0));
    auto t = w.carry(w.zero, N, init, [&](Value j, const std::vector<Value>& c) {
      Value xj = w.ld(x, {j});
      std::vector<Value> next;
      for (std::int64_t l = 0; l < rows; ++l) next.push_back(c[l] + w.ld(A, {i0 + l, j}) * xj);
      return next;
    });
    for (std::int64_t l = 0; l < rows; ++l) w.st(t[l], tmp, {i0 + l});
    w.loop(w.zero, N, [&](Value j) {
      Value yj = w.ld(y, {j});
      for (std::int64_t l = 0; l < rows; ++l) yj = yj + w.ld(A, {i0 + l, j}) * t[l];
      w.st(yj, y, {j});
    });
  });
  w.loop(full, M, [&](Value i) {
    Value t = w.sum(w.zero, N, w.f64(0.0), [&](Value j, Value acc) { return acc + w.ld(A, {i, j}) * w.ld(x, {j}); });
    w.st(t, tmp, {i});
    w.loop(w.zero, N, [&](Value j) { w.st(w.ld(y, {j}) + w.ld(A, {i, j}) * t, y, {j}); });
  });
  return w.finish();
}

Error buildBicg(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), s = w.arg(1), q = w.arg(2), p = w.arg(3), r = w.arg(4);
  Value N = w.b.dim(A, 0), M = w.b.dim(A, 1);
  w.loop(w.zero, M, [&](Value i) { w.st(w.f64(0.0), s, {i}); });
  w.loop(w.zero, N, [&](Value i) {
    Value ri = w.ld(r, {i});
    Value qi = w.sum(w.zero, M, w.f64(0.0), [&](Value j, Value acc) {
      Value aij = w.ld(A, {i, j});
      w.st(w.ld(s, {j}) + ri * aij, s, {j});
      return acc + aij * w.ld(p, {j});
    });
    w.st(qi, q, {i});
  });
  return w.finish();
}

Error buildDoitgen(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), C4 = w.arg(1), sum = w.arg(2);
  Value NR = w.b.dim(A, 0), NQ = w.b.dim(A, 1), NP = w.b.dim(A, 2);
  w.loop(w.zero, NR, [&](Value r) {
    w.loop(w.zero, NQ, [&](Value q) {
      w.jam(
          w.zero, NP, NP, 8, [&](Value) { return w.f64(0.0); },
          [&](Value p, Value t, Value acc) { return acc + w.ld(A, {r, q, t}) * w.ld(C4, {t, p}); },
          [&](Value p, Value s) { w.st(s, sum, {p}); });
      w.loop(w.zero, NP, [&](Value p) { w.st(w.ld(sum, {p}), A, {r, q, p}); });
    });
  });
  return w.finish();
}

Error buildMvt(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value x1 = w.arg(0), x2 = w.arg(1), y1 = w.arg(2), y2 = w.arg(3), A = w.arg(4);
  Value N = w.b.dim(A, 0);
  // 8 rows' sums together: 8 independent chains of additions instead of one.
  w.jam(
      w.zero, N, N, 8, [&](Value i) { return w.ld(x1, {i}); },
      [&](Value i, Value j, Value acc) { return acc + w.ld(A, {i, j}) * w.ld(y1, {j}); },
      [&](Value i, Value s) { w.st(s, x1, {i}); }, true);
  // x2 reads A down its columns: 8 i's summed together read it along its rows.
  w.jam(
      w.zero, N, N, 8, [&](Value i) { return w.ld(x2, {i}); },
      [&](Value i, Value j, Value acc) { return acc + w.ld(A, {j, i}) * w.ld(y2, {j}); },
      [&](Value i, Value s) { w.st(s, x2, {i}); }, true);
  return w.finish();
}

double ratio(long v, long d) { return double(v) / double(d); }

void init2mm(Data& d) {
  const int ni = int(d.p[0]), nj = int(d.p[1]), nk = int(d.p[2]), nl = int(d.p[3]);
  d.s = {1.5, 1.2};
  double *A = d.f64(1), *B = d.f64(2), *C = d.f64(3), *D = d.f64(4);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nk; j++) A[i * nk + j] = ratio(i * j % ni, ni);
  for (int i = 0; i < nk; i++)
    for (int j = 0; j < nj; j++) B[i * nj + j] = ratio(i * (j + 1) % nj, nj);
  for (int i = 0; i < nj; i++)
    for (int j = 0; j < nl; j++) C[i * nl + j] = ratio(i * (j + 3) % nl, nl);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) D[i * nl + j] = ratio(i * (j + 2) % nk, nk);
}

void init3mm(Data& d) {
  const int ni = int(d.p[0]), nj = int(d.p[1]), nk = int(d.p[2]), nl = int(d.p[3]), nm = int(d.p[4]);
  double *A = d.f64(1), *B = d.f64(2), *C = d.f64(4), *D = d.f64(5);
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nk; j++) A[i * nk + j] = ratio(i * j % ni, 5 * ni);
  for (int i = 0; i < nk; i++)
    for (int j = 0; j < nj; j++) B[i * nj + j] = ratio(i * (j + 1) % nj, 5 * nj);
  for (int i = 0; i < nj; i++)
    for (int j = 0; j < nm; j++) C[i * nm + j] = ratio(i * (j + 3) % nl, 5 * nl);
  for (int i = 0; i < nm; i++)
    for (int j = 0; j < nl; j++) D[i * nl + j] = ratio(i * (j + 2) % nk, 5 * nk);
}

void initAtax(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  double *A = d.f64(0), *x = d.f64(1);
  const double fn = double(n);
  for (int i = 0; i < n; i++) x[i] = 1 + (i / fn);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = ratio((i + j) % n, 5 * m);
}

void initBicg(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  double *A = d.f64(0), *p = d.f64(3), *r = d.f64(4);
  for (int i = 0; i < m; i++) p[i] = ratio(i % m, m);
  for (int i = 0; i < n; i++) {
    r[i] = ratio(i % n, n);
    for (int j = 0; j < m; j++) A[i * m + j] = ratio(i * (j + 1) % n, n);
  }
}

void initDoitgen(Data& d) {
  const int nq = int(d.p[0]), nr = int(d.p[1]), np = int(d.p[2]);
  double *A = d.f64(0), *C4 = d.f64(1);
  for (int i = 0; i < nr; i++)
    for (int j = 0; j < nq; j++)
      for (int k = 0; k < np; k++) A[(i * nq + j) * np + k] = ratio((i * j + k) % np, np);
  for (int i = 0; i < np; i++)
    for (int j = 0; j < np; j++) C4[i * np + j] = ratio(i * j % np, np);
}

void initMvt(Data& d) {
  const int n = int(d.p[0]);
  double *x1 = d.f64(0), *x2 = d.f64(1), *y1 = d.f64(2), *y2 = d.f64(3), *A = d.f64(4);
  for (int i = 0; i < n; i++) {
    x1[i] = ratio(i % n, n);
    x2[i] = ratio((i + 1) % n, n);
    y1[i] = ratio((i + 3) % n, n);
    y2[i] = ratio((i + 4) % n, n);
    for (int j = 0; j < n; j++) A[i * n + j] = ratio(i * j % n, n);
  }
}

}  // namespace

std::vector<Kernel> linearAlgebraKernels() {
  const std::array<std::vector<std::int64_t>, 4> mn{{{38, 42}, {116, 124}, {390, 410}, {1900, 2100}}};
  return {
      {.name = "2mm",
       .sizeNames = {"NI", "NJ", "NK", "NL"},
       .sizes = {{{16, 18, 22, 24}, {40, 50, 70, 80}, {180, 190, 210, 220}, {800, 900, 1100, 1200}}},
       .scalars = {{"alpha", F64}, {"beta", F64}},
       .arrays = {{"tmp", F64, {0, 1}}, {"A", F64, {0, 2}}, {"B", F64, {2, 1}}, {"C", F64, {1, 3}},
                  {"D", F64, {0, 3}, true}},
       .init = init2mm,
       .build = build2mm,
       .gcc = polybench_2mm_gcc,
       .clang = polybench_2mm_clang,
       .omp = polybench_2mm_omp},
      {.name = "3mm",
       .sizeNames = {"NI", "NJ", "NK", "NL", "NM"},
       .sizes = {{{16, 18, 20, 22, 24}, {40, 50, 60, 70, 80}, {180, 190, 200, 210, 220}, {800, 900, 1000, 1100, 1200}}},
       .scalars = {},
       .arrays = {{"E", F64, {0, 1}}, {"A", F64, {0, 2}}, {"B", F64, {2, 1}}, {"F", F64, {1, 3}},
                  {"C", F64, {1, 4}}, {"D", F64, {4, 3}}, {"G", F64, {0, 3}, true}},
       .init = init3mm,
       .build = build3mm,
       .gcc = polybench_3mm_gcc,
       .clang = polybench_3mm_clang,
       .omp = polybench_3mm_omp},
      {.name = "atax",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = {},
       .arrays = {{"A", F64, {0, 1}}, {"x", F64, {1}}, {"y", F64, {1}, true}, {"tmp", F64, {0}}},
       .init = initAtax,
       .build = buildAtax,
       .gcc = polybench_atax_gcc,
       .clang = polybench_atax_clang},
      {.name = "bicg",
       .sizeNames = {"M", "N"},
       .sizes = mn,
       .scalars = {},
       .arrays = {{"A", F64, {1, 0}}, {"s", F64, {0}, true}, {"q", F64, {1}, true}, {"p", F64, {0}}, {"r", F64, {1}}},
       .init = initBicg,
       .build = buildBicg,
       .gcc = polybench_bicg_gcc,
       .clang = polybench_bicg_clang},
      {.name = "doitgen",
       .sizeNames = {"NQ", "NR", "NP"},
       .sizes = {{{8, 10, 12}, {20, 25, 30}, {40, 50, 60}, {140, 150, 160}}},
       .scalars = {},
       .arrays = {{"A", F64, {1, 0, 2}, true}, {"C4", F64, {2, 2}}, {"sum", F64, {2}}},
       .init = initDoitgen,
       .build = buildDoitgen,
       .gcc = polybench_doitgen_gcc,
       .clang = polybench_doitgen_clang},
      {.name = "mvt",
       .sizeNames = {"N"},
       .sizes = {{{40}, {120}, {400}, {2000}}},
       .scalars = {},
       .arrays = {{"x1", F64, {0}, true}, {"x2", F64, {0}, true}, {"y_1", F64, {0}}, {"y_2", F64, {0}},
                  {"A", F64, {0, 0}}},
       .init = initMvt,
       .build = buildMvt,
       .gcc = polybench_mvt_gcc,
       .clang = polybench_mvt_clang,
       .omp = polybench_mvt_omp},
  };
}

}  // namespace memjit::polybench
