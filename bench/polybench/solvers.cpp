// cholesky, durbin, gramschmidt, lu, ludcmp, trisolv (PolyBench/C 4.2.1 linear-algebra/solvers) with memjit's
// builder. The running values PolyBench keeps in A[i][j] while it subtracts (cholesky, lu) are kept in a register
// here: the same subtractions in the same order.
#include <vector>

#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F64 = ElementType::F64;
using Options = codegen::FunctionOptions;

Error buildCholesky(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), N = w.b.dim(A, 0);
  w.loop(w.zero, N, [&](Value i) {
    // 8 elements of the row at a time share the subtractions below the first of them (KernelWriter::jamTriangle).
    w.jamTriangle(
        w.zero, i, 8, [&](Value j) { return w.ld(A, {i, j}); },
        [&](Value j, Value kk, Value acc) { return acc - w.ld(A, {i, kk}) * w.ld(A, {j, kk}); },
        [&](Value j, Value v) { w.st(v / w.ld(A, {j, j}), A, {i, j}); });
    Value v = w.sum(w.zero, i, w.ld(A, {i, i}), [&](Value kk, Value acc) {
      Value aik = w.ld(A, {i, kk});
      return acc - aik * aik;
    });
    w.st(w.b.sqrt(v), A, {i, i});
  });
  return w.finish();
}

Error buildDurbin(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value r = w.arg(0), y = w.arg(1), z = w.arg(2), N = w.b.dim(r, 0);
  Value r0 = -w.ld(r, {w.zero});
  w.st(r0, y, {w.zero});
  w.carry(w.one, N, {r0, w.f64(1.0)}, [&](Value kk, const std::vector<Value>& c) {
    Value beta = (1.0 - c[0] * c[0]) * c[1];
    Value sum = w.sum(w.zero, kk, w.f64(0.0),
                      [&](Value i, Value acc) { return acc + w.ld(r, {kk - i - 1}) * w.ld(y, {i}); });
    Value alpha = -(w.ld(r, {kk}) + sum) / beta;
    w.loop(w.zero, kk, [&](Value i) { w.st(w.ld(y, {i}) + alpha * w.ld(y, {kk - i - 1}), z, {i}); });
    w.loop(w.zero, kk, [&](Value i) { w.st(w.ld(z, {i}), y, {i}); });
    w.st(alpha, y, {kk});
    return std::vector<Value>{alpha, beta};
  });
  return w.finish();
}

Error buildGramschmidt(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), R = w.arg(1), Q = w.arg(2);
  Value M = w.b.dim(A, 0), N = w.b.dim(A, 1);
  w.loop(w.zero, N, [&](Value kk) {
    Value nrm = w.sum(w.zero, M, w.f64(0.0), [&](Value i, Value acc) {
      Value aik = w.ld(A, {i, kk});
      return acc + aik * aik;
    });
    Value rkk = w.b.sqrt(nrm);
    w.st(rkk, R, {kk, kk});
    w.loop(w.zero, M, [&](Value i) { w.st(w.ld(A, {i, kk}) / rkk, Q, {i, kk}); });
    // PolyBench computes R[k][j] and updates column j of A one j at a time, reading A down its columns; here
    // R[k][j] for 8 j's together (KernelWriter::jam), then the update row by row. Each element gets the same
    // operations in the same order (column j's update needs only R[k][j]).
    w.jam(
        kk + 1, N, M, 8, [&](Value) { return w.f64(0.0); },
        [&](Value j, Value i, Value acc) { return acc + w.ld(Q, {i, kk}) * w.ld(A, {i, j}); },
        [&](Value j, Value rkj) { w.st(rkj, R, {kk, j}); }, true);
    w.outer(w.zero, M, [&](Value i) {
      Value qik = w.ld(Q, {i, kk});
      w.loop(kk + 1, N, [&](Value j) { w.st(w.ld(A, {i, j}) - qik * w.ld(R, {kk, j}), A, {i, j}); });
    });
  });
  return w.finish();
}

// lu's and ludcmp's factorisation (the same loop nest; ludcmp names the running value w).
void factorise(KernelWriter& w, Value A, Value N) {
  w.loop(w.zero, N, [&](Value i) {
    // The lower part: 8 elements at a time share the subtractions below the first of them.
    w.jamTriangle(
        w.zero, i, 8, [&](Value j) { return w.ld(A, {i, j}); },
        [&](Value j, Value kk, Value acc) { return acc - w.ld(A, {i, kk}) * w.ld(A, {kk, j}); },
        [&](Value j, Value v) { w.st(v / w.ld(A, {j, j}), A, {i, j}); });
    // The upper part's elements of row i are independent: 8 at a time read A along its rows.
    w.jamFrom(
        i, N, w.zero, i, 8, [&](Value j) { return w.ld(A, {i, j}); },
        [&](Value j, Value kk, Value acc) { return acc - w.ld(A, {i, kk}) * w.ld(A, {kk, j}); },
        [&](Value j, Value v) { w.st(v, A, {i, j}); });
  });
}

Error buildLu(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0);
  factorise(w, A, w.b.dim(A, 0));
  return w.finish();
}

Error buildLudcmp(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value A = w.arg(0), b = w.arg(1), x = w.arg(2), y = w.arg(3), N = w.b.dim(A, 0);
  factorise(w, A, N);
  w.loop(w.zero, N, [&](Value i) {
    w.st(w.sum(w.zero, i, w.ld(b, {i}), [&](Value j, Value acc) { return acc - w.ld(A, {i, j}) * w.ld(y, {j}); }),
         y, {i});
  });
  w.down(w.zero, N, [&](Value i) {
    Value v = w.sum(i + 1, N, w.ld(y, {i}), [&](Value j, Value acc) { return acc - w.ld(A, {i, j}) * w.ld(x, {j}); });
    w.st(v / w.ld(A, {i, i}), x, {i});
  });
  return w.finish();
}

Error buildTrisolv(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value L = w.arg(0), x = w.arg(1), b = w.arg(2), N = w.b.dim(L, 0);
  w.loop(w.zero, N, [&](Value i) {
    Value v = w.sum(w.zero, i, w.ld(b, {i}), [&](Value j, Value acc) { return acc - w.ld(L, {i, j}) * w.ld(x, {j}); });
    w.st(v / w.ld(L, {i, i}), x, {i});
  });
  return w.finish();
}

// cholesky's, lu's and ludcmp's input: a lower triangle of 1 - j/n (1 on the diagonal) times its transpose.
// PolyBench sums B[r][s] += A[r][t] * A[s][t] over t = 0..n-1 in an n^3 loop; here the same sums in the same
// order of t, skipping the terms past min(r, s), which are exactly +0 (A's upper triangle is 0 and its lower one
// positive), so adding them changes no bit. At LARGE (n = 2000) this takes a second instead of a minute.
void initPositiveSemiDefinite(double* A, int n) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) A[i * n + j] = (double)(-j % n) / n + 1;
    for (int j = i + 1; j < n; j++) A[i * n + j] = 0;
    A[i * n + i] = 1;
  }
  std::vector<double> At(std::size_t(n) * n), B(std::size_t(n) * n, 0.0);
  for (int r = 0; r < n; ++r)
    for (int t = 0; t < n; ++t) At[std::size_t(t) * n + r] = A[r * n + t];
  for (int r = 0; r < n; ++r) {
    double* row = &B[std::size_t(r) * n];
    for (int t = 0; t <= r; ++t) {
      const double art = A[r * n + t];
      const double* col = &At[std::size_t(t) * n];
      for (int s = t; s < n; ++s) row[s] += art * col[s];
    }
  }
  for (std::size_t i = 0; i < B.size(); ++i) A[i] = B[i];
}

void initCholesky(Data& d) { initPositiveSemiDefinite(d.f64(0), int(d.p[0])); }

void initDurbin(Data& d) {
  const int n = int(d.p[0]);
  double* r = d.f64(0);
  for (int i = 0; i < n; i++) r[i] = (n + 1 - i);
}

void initGramschmidt(Data& d) {
  const int m = int(d.p[0]), n = int(d.p[1]);
  double *A = d.f64(0), *R = d.f64(1), *Q = d.f64(2);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = ((double)(i * j % m) / m) + 0.5;
      Q[i * n + j] = 0.0;
    }
  for (int i = 0; i < n * n; i++) R[i] = 0.0;
}

void initLudcmp(Data& d) {
  const int n = int(d.p[0]);
  const double fn = double(n);
  double *b = d.f64(1), *x = d.f64(2), *y = d.f64(3);
  for (int i = 0; i < n; i++) {
    x[i] = 0;
    y[i] = 0;
    b[i] = (i + 1) / fn / 2.0 + 4;
  }
  initPositiveSemiDefinite(d.f64(0), n);
}

void initTrisolv(Data& d) {
  const int n = int(d.p[0]);
  double *L = d.f64(0), *x = d.f64(1), *b = d.f64(2);
  for (int i = 0; i < n; i++) {
    x[i] = -999;
    b[i] = i;
    for (int j = 0; j <= i; j++) L[i * n + j] = (double)(i + n - j + 1) * 2 / n;
  }
}

}  // namespace

std::vector<Kernel> solvers() {
  const std::array<std::vector<std::int64_t>, 4> n{{{40}, {120}, {400}, {2000}}};
  return {
      {.name = "cholesky",
       .sizeNames = {"N"},
       .sizes = n,
       .scalars = {},
       .arrays = {{"A", F64, {0, 0}, true}},
       .init = initCholesky,
       .build = buildCholesky,
       .gcc = polybench_cholesky_gcc,
       .clang = polybench_cholesky_clang},
      {.name = "durbin",
       .sizeNames = {"N"},
       .sizes = n,
       .scalars = {},
       .arrays = {{"r", F64, {0}}, {"y", F64, {0}, true}, {"z", F64, {0}}},
       .init = initDurbin,
       .build = buildDurbin,
       .gcc = polybench_durbin_gcc,
       .clang = polybench_durbin_clang},
      {.name = "gramschmidt",
       .sizeNames = {"M", "N"},
       .sizes = {{{20, 30}, {60, 80}, {200, 240}, {1000, 1200}}},
       .scalars = {},
       .arrays = {{"A", F64, {0, 1}, true}, {"R", F64, {1, 1}, true}, {"Q", F64, {0, 1}, true}},
       .init = initGramschmidt,
       .build = buildGramschmidt,
       .gcc = polybench_gramschmidt_gcc,
       .clang = polybench_gramschmidt_clang,
       .omp = polybench_gramschmidt_omp},
      {.name = "lu",
       .sizeNames = {"N"},
       .sizes = n,
       .scalars = {},
       .arrays = {{"A", F64, {0, 0}, true}},
       .init = initCholesky,
       .build = buildLu,
       .gcc = polybench_lu_gcc,
       .clang = polybench_lu_clang},
      {.name = "ludcmp",
       .sizeNames = {"N"},
       .sizes = n,
       .scalars = {},
       .arrays = {{"A", F64, {0, 0}}, {"b", F64, {0}}, {"x", F64, {0}, true}, {"y", F64, {0}}},
       .init = initLudcmp,
       .build = buildLudcmp,
       .gcc = polybench_ludcmp_gcc,
       .clang = polybench_ludcmp_clang},
      {.name = "trisolv",
       .sizeNames = {"N"},
       .sizes = n,
       .scalars = {},
       .arrays = {{"L", F64, {0, 0}}, {"x", F64, {0}, true}, {"b", F64, {0}}},
       .init = initTrisolv,
       .build = buildTrisolv,
       .gcc = polybench_trisolv_gcc,
       .clang = polybench_trisolv_clang},
  };
}

}  // namespace memjit::polybench
