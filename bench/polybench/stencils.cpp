// adi, fdtd-2d, heat-3d, jacobi-1d, jacobi-2d, seidel-2d (PolyBench/C 4.2.1 stencils) with memjit's builder. The
// time steps are an index argument (`tsteps`); fdtd-2d's are the length of its _fict_ array.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F64 = ElementType::F64, Index = ElementType::Index;
using Options = codegen::FunctionOptions;
// The stencils' rows in vectors of 8 doubles (one AVX-512 register) without interleaving: on this CPU LLVM picks
// 4-lane vectors (it prefers 256-bit ones) interleaved 4 ways, which leaves up to 15 elements of every short row
// to the scalar remainder. Measured: jacobi-1d at LARGE 0.31 -> 0.24 ms, fdtd-2d at MEDIUM 4.2 -> 3.6 ms.
constexpr codegen::LoopOptions kRowVectors{.vectorWidth = 8, .interleave = 1};

Error buildAdi(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value tsteps = w.arg(0), u = w.arg(1), v = w.arg(2), p = w.arg(3), q = w.arg(4), N = w.b.dim(u, 0);
  Value DX = 1.0 / w.asF64(N), DY = 1.0 / w.asF64(N), DT = 1.0 / w.asF64(tsteps);
  Value B1 = w.f64(2.0), B2 = w.f64(1.0);
  Value mul1 = B1 * DT / (DX * DX), mul2 = B2 * DT / (DY * DY);
  Value a = -mul1 / 2.0, b = 1.0 + mul1, c = a, d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  Value one = w.f64(1.0), zero = w.f64(0.0);
  w.loop(w.one, tsteps + 1, [&](Value) {
    // Column sweep.
    w.outer(w.one, N - 1, [&](Value i) {
      w.st(one, v, {w.zero, i});
      w.st(zero, p, {i, w.zero});
      w.st(w.ld(v, {w.zero, i}), q, {i, w.zero});
      w.carry(w.one, N - 1, {zero, one}, [&](Value j, const std::vector<Value>& pq) {
        Value denominator = a * pq[0] + b;
        Value pij = -c / denominator;
        Value qij = (-d * w.ld(u, {j, i - 1}) + (1.0 + 2.0 * d) * w.ld(u, {j, i}) - f * w.ld(u, {j, i + 1}) -
                     a * pq[1]) /
                    denominator;
        w.st(pij, p, {i, j});
        w.st(qij, q, {i, j});
        return std::vector<Value>{pij, qij};
      });
      w.st(one, v, {N - 1, i});
      w.carry(w.zero, N - 2, {one}, [&](Value t, const std::vector<Value>& next) {
        Value j = N - 2 - t;
        Value vj = w.ld(p, {i, j}) * next[0] + w.ld(q, {i, j});
        w.st(vj, v, {j, i});
        return std::vector<Value>{vj};
      });
    });
    // Row sweep.
    w.outer(w.one, N - 1, [&](Value i) {
      w.st(one, u, {i, w.zero});
      w.st(zero, p, {i, w.zero});
      w.st(w.ld(u, {i, w.zero}), q, {i, w.zero});
      w.carry(w.one, N - 1, {zero, one}, [&](Value j, const std::vector<Value>& pq) {
        Value denominator = d * pq[0] + e;
        Value pij = -f / denominator;
        Value qij = (-a * w.ld(v, {i - 1, j}) + (1.0 + 2.0 * a) * w.ld(v, {i, j}) - c * w.ld(v, {i + 1, j}) -
                     d * pq[1]) /
                    denominator;
        w.st(pij, p, {i, j});
        w.st(qij, q, {i, j});
        return std::vector<Value>{pij, qij};
      });
      w.st(one, u, {i, N - 1});
      w.carry(w.zero, N - 2, {one}, [&](Value t, const std::vector<Value>& next) {
        Value j = N - 2 - t;
        Value uj = w.ld(p, {i, j}) * next[0] + w.ld(q, {i, j});
        w.st(uj, u, {i, j});
        return std::vector<Value>{uj};
      });
    });
  });
  return w.finish();
}

Error buildFdtd2d(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value ex = w.arg(0), ey = w.arg(1), hz = w.arg(2), fict = w.arg(3);
  Value TMAX = w.b.dim(fict, 0), NX = w.b.dim(ex, 0), NY = w.b.dim(ex, 1);
  w.loop(w.zero, TMAX, [&](Value t) {
    Value ft = w.ld(fict, {t});
    w.loop(w.zero, NY, [&](Value j) { w.st(ft, ey, {w.zero, j}); });
    w.outer(w.one, NX, [&](Value i) {
      w.loop(w.zero, NY, kRowVectors, [&](Value j) {
        w.st(w.ld(ey, {i, j}) - 0.5 * (w.ld(hz, {i, j}) - w.ld(hz, {i - 1, j})), ey, {i, j});
      });
    });
    w.outer(w.zero, NX, [&](Value i) {
      w.loop(w.one, NY, kRowVectors, [&](Value j) {
        w.st(w.ld(ex, {i, j}) - 0.5 * (w.ld(hz, {i, j}) - w.ld(hz, {i, j - 1})), ex, {i, j});
      });
    });
    w.outer(w.zero, NX - 1, [&](Value i) {
      w.loop(w.zero, NY - 1, kRowVectors, [&](Value j) {
        Value curl = w.ld(ex, {i, j + 1}) - w.ld(ex, {i, j}) + w.ld(ey, {i + 1, j}) - w.ld(ey, {i, j});
        w.st(w.ld(hz, {i, j}) - 0.7 * curl, hz, {i, j});
      });
    });
  });
  return w.finish();
}

// One heat-3d half step: to = 0.125 * (second differences along i, j, k) + from.
void heatStep(KernelWriter& w, Value from, Value to, Value N) {
  w.outer(w.one, N - 1, [&](Value i) {
    w.loop(w.one, N - 1, [&](Value j) {
      w.loop(w.one, N - 1, kRowVectors, [&](Value k) {
        Value c = w.ld(from, {i, j, k});
        Value di = w.ld(from, {i + 1, j, k}) - 2.0 * c + w.ld(from, {i - 1, j, k});
        Value dj = w.ld(from, {i, j + 1, k}) - 2.0 * c + w.ld(from, {i, j - 1, k});
        Value dk = w.ld(from, {i, j, k + 1}) - 2.0 * c + w.ld(from, {i, j, k - 1});
        w.st(0.125 * di + 0.125 * dj + 0.125 * dk + c, to, {i, j, k});
      });
    });
  });
}

Error buildHeat3d(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value tsteps = w.arg(0), A = w.arg(1), B = w.arg(2), N = w.b.dim(A, 0);
  w.loop(w.one, tsteps + 1, [&](Value) {
    heatStep(w, A, B, N);
    heatStep(w, B, A, N);
  });
  return w.finish();
}

Error buildJacobi1d(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value tsteps = w.arg(0), A = w.arg(1), B = w.arg(2), N = w.b.dim(A, 0);
  auto step = [&](Value from, Value to) {
    w.loop(w.one, N - 1, kRowVectors, [&](Value i) {
      w.st(0.33333 * (w.ld(from, {i - 1}) + w.ld(from, {i}) + w.ld(from, {i + 1})), to, {i});
    });
  };
  w.loop(w.zero, tsteps, [&](Value) {
    step(A, B);
    step(B, A);
  });
  return w.finish();
}

Error buildJacobi2d(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value tsteps = w.arg(0), A = w.arg(1), B = w.arg(2), N = w.b.dim(A, 0);
  auto step = [&](Value from, Value to) {
    w.outer(w.one, N - 1, [&](Value i) {
      w.loop(w.one, N - 1, kRowVectors, [&](Value j) {
        Value s = w.ld(from, {i, j}) + w.ld(from, {i, j - 1}) + w.ld(from, {i, j + 1}) + w.ld(from, {i + 1, j}) +
                  w.ld(from, {i - 1, j});
        w.st(0.2 * s, to, {i, j});
      });
    });
  };
  w.loop(w.zero, tsteps, [&](Value) {
    step(A, B);
    step(B, A);
  });
  return w.finish();
}

Error buildSeidel2d(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value tsteps = w.arg(0), A = w.arg(1), N = w.b.dim(A, 0);
  w.loop(w.zero, tsteps, [&](Value) {
    w.loop(w.one, N - 1, [&](Value i) {
      w.loop(w.one, N - 1, [&](Value j) {
        Value s = w.ld(A, {i - 1, j - 1}) + w.ld(A, {i - 1, j}) + w.ld(A, {i - 1, j + 1}) + w.ld(A, {i, j - 1}) +
                  w.ld(A, {i, j}) + w.ld(A, {i, j + 1}) + w.ld(A, {i + 1, j - 1}) + w.ld(A, {i + 1, j}) +
                  w.ld(A, {i + 1, j + 1});
        w.st(s / 9.0, A, {i, j});
      });
    });
  });
  return w.finish();
}

void initAdi(Data& d) {
  const int n = int(d.p[1]);
  d.s = {double(d.p[0])};
  double* u = d.f64(0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) u[i * n + j] = (double)(i + n - j) / n;
}

void initFdtd2d(Data& d) {
  const int tmax = int(d.p[0]), nx = int(d.p[1]), ny = int(d.p[2]);
  double *ex = d.f64(0), *ey = d.f64(1), *hz = d.f64(2), *fict = d.f64(3);
  for (int i = 0; i < tmax; i++) fict[i] = (double)i;
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < ny; j++) {
      ex[i * ny + j] = ((double)i * (j + 1)) / nx;
      ey[i * ny + j] = ((double)i * (j + 2)) / ny;
      hz[i * ny + j] = ((double)i * (j + 3)) / nx;
    }
}

void initHeat3d(Data& d) {
  const int n = int(d.p[1]);
  d.s = {double(d.p[0])};
  double *A = d.f64(0), *B = d.f64(1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) A[(i * n + j) * n + k] = B[(i * n + j) * n + k] = (double)(i + j + (n - k)) * 10 / (n);
}

void initJacobi1d(Data& d) {
  const int n = int(d.p[1]);
  d.s = {double(d.p[0])};
  double *A = d.f64(0), *B = d.f64(1);
  for (int i = 0; i < n; i++) {
    A[i] = ((double)i + 2) / n;
    B[i] = ((double)i + 3) / n;
  }
}

void initJacobi2d(Data& d) {
  const int n = int(d.p[1]);
  d.s = {double(d.p[0])};
  double *A = d.f64(0), *B = d.f64(1);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i * n + j] = ((double)i * (j + 2) + 2) / n;
      B[i * n + j] = ((double)i * (j + 3) + 3) / n;
    }
}

void initSeidel2d(Data& d) {
  const int n = int(d.p[1]);
  d.s = {double(d.p[0])};
  double* A = d.f64(0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) A[i * n + j] = ((double)i * (j + 2) + 2) / n;
}

}  // namespace

std::vector<Kernel> stencils() {
  const std::vector<ScalarSpec> tsteps{{"tsteps", Index}};
  return {
      {.name = "adi",
       .sizeNames = {"TSTEPS", "N"},
       .sizes = {{{20, 20}, {40, 60}, {100, 200}, {500, 1000}}},
       .scalars = tsteps,
       .arrays = {{"u", F64, {1, 1}, true}, {"v", F64, {1, 1}}, {"p", F64, {1, 1}}, {"q", F64, {1, 1}}},
       .init = initAdi,
       .build = buildAdi,
       .gcc = polybench_adi_gcc,
       .clang = polybench_adi_clang,
       .omp = polybench_adi_omp},
      {.name = "fdtd-2d",
       .sizeNames = {"TMAX", "NX", "NY"},
       .sizes = {{{20, 20, 30}, {40, 60, 80}, {100, 200, 240}, {500, 1000, 1200}}},
       .scalars = {},
       .arrays = {{"ex", F64, {1, 2}, true}, {"ey", F64, {1, 2}, true}, {"hz", F64, {1, 2}, true},
                  {"_fict_", F64, {0}}},
       .init = initFdtd2d,
       .build = buildFdtd2d,
       .gcc = polybench_fdtd_2d_gcc,
       .clang = polybench_fdtd_2d_clang,
       .omp = polybench_fdtd_2d_omp},
      {.name = "heat-3d",
       .sizeNames = {"TSTEPS", "N"},
       .sizes = {{{20, 10}, {40, 20}, {100, 40}, {500, 120}}},
       .scalars = tsteps,
       .arrays = {{"A", F64, {1, 1, 1}, true}, {"B", F64, {1, 1, 1}}},
       .init = initHeat3d,
       .build = buildHeat3d,
       .gcc = polybench_heat_3d_gcc,
       .clang = polybench_heat_3d_clang,
       .omp = polybench_heat_3d_omp},
      {.name = "jacobi-1d",
       .sizeNames = {"TSTEPS", "N"},
       .sizes = {{{20, 30}, {40, 120}, {100, 400}, {500, 2000}}},
       .scalars = tsteps,
       .arrays = {{"A", F64, {1}, true}, {"B", F64, {1}}},
       .init = initJacobi1d,
       .build = buildJacobi1d,
       .gcc = polybench_jacobi_1d_gcc,
       .clang = polybench_jacobi_1d_clang},
      {.name = "jacobi-2d",
       .sizeNames = {"TSTEPS", "N"},
       .sizes = {{{20, 30}, {40, 90}, {100, 250}, {500, 1300}}},
       .scalars = tsteps,
       .arrays = {{"A", F64, {1, 1}, true}, {"B", F64, {1, 1}}},
       .init = initJacobi2d,
       .build = buildJacobi2d,
       .gcc = polybench_jacobi_2d_gcc,
       .clang = polybench_jacobi_2d_clang,
       .omp = polybench_jacobi_2d_omp},
      {.name = "seidel-2d",
       .sizeNames = {"TSTEPS", "N"},
       .sizes = {{{20, 40}, {40, 120}, {100, 400}, {500, 2000}}},
       .scalars = tsteps,
       .arrays = {{"A", F64, {1, 1}, true}},
       .init = initSeidel2d,
       .build = buildSeidel2d,
       .gcc = polybench_seidel_2d_gcc,
       .clang = polybench_seidel_2d_clang},
  };
}

}  // namespace memjit::polybench
