// adi, fdtd-2d, heat-3d, jacobi-1d, jacobi-2d, seidel-2d (PolyBench/C 4.2.1 stencils), as PolyBench writes them.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(adi) {
  const int tsteps = int(n[0]), nn = int(n[1]);
  auto u = mat(a, 0, nn), v = mat(a, 1, nn), p = mat(a, 2, nn), q = mat(a, 3, nn);
  (void)s;
  double DX = 1.0 / (double)nn, DY = 1.0 / (double)nn, DT = 1.0 / (double)tsteps;
  double B1 = 2.0, B2 = 1.0;
  double mul1 = B1 * DT / (DX * DX), mul2 = B2 * DT / (DY * DY);
  double a_ = -mul1 / 2.0, b = 1.0 + mul1, c = a_, d = -mul2 / 2.0, e = 1.0 + mul2, f = d;
  for (int t = 1; t <= tsteps; t++) {
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (int j = 1; j < nn - 1; j++) {
        p[i][j] = -c / (a_ * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1] - a_ * q[i][j - 1]) /
                  (a_ * p[i][j - 1] + b);
      }
      v[nn - 1][i] = 1.0;
      for (int j = nn - 2; j >= 1; j--) v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (int j = 1; j < nn - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a_ * v[i - 1][j] + (1.0 + 2.0 * a_) * v[i][j] - c * v[i + 1][j] - d * q[i][j - 1]) /
                  (d * p[i][j - 1] + e);
      }
      u[i][nn - 1] = 1.0;
      for (int j = nn - 2; j >= 1; j--) u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
}

POLYBENCH_TWIN(fdtd_2d) {
  const int tmax = int(n[0]), nx = int(n[1]), ny = int(n[2]);
  auto ex = mat(a, 0, ny), ey = mat(a, 1, ny), hz = mat(a, 2, ny);
  double* fict = vec(a, 3);
  (void)s;
  for (int t = 0; t < tmax; t++) {
    for (int j = 0; j < ny; j++) ey[0][j] = fict[t];
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nx; i++)
      for (int j = 0; j < ny; j++) ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    POLYBENCH_OMP_FOR
    for (int i = 0; i < nx; i++)
      for (int j = 1; j < ny; j++) ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    POLYBENCH_OMP_FOR
    for (int i = 0; i < nx - 1; i++)
      for (int j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
}

POLYBENCH_TWIN(heat_3d) {
  const int tsteps = int(n[0]), nn = int(n[1]);
  auto A = cube(a, 0, nn, nn), B = cube(a, 1, nn, nn);
  (void)s;
  for (int t = 1; t <= tsteps; t++) {
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++)
      for (int j = 1; j < nn - 1; j++)
        for (int k = 1; k < nn - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k]) +
                       0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k]) +
                       0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) + A[i][j][k];
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++)
      for (int j = 1; j < nn - 1; j++)
        for (int k = 1; k < nn - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k]) +
                       0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k]) +
                       0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) + B[i][j][k];
  }
}

POLYBENCH_TWIN(jacobi_1d) {
  const int tsteps = int(n[0]), nn = int(n[1]);
  double *A = vec(a, 0), *B = vec(a, 1);
  (void)s;
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < nn - 1; i++) B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < nn - 1; i++) A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

POLYBENCH_TWIN(jacobi_2d) {
  const int tsteps = int(n[0]), nn = int(n[1]);
  auto A = mat(a, 0, nn), B = mat(a, 1, nn);
  (void)s;
  for (int t = 0; t < tsteps; t++) {
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++)
      for (int j = 1; j < nn - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] + A[i - 1][j]);
    POLYBENCH_OMP_FOR
    for (int i = 1; i < nn - 1; i++)
      for (int j = 1; j < nn - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] + B[i - 1][j]);
  }
}

POLYBENCH_TWIN(seidel_2d) {
  const int tsteps = int(n[0]), nn = int(n[1]);
  auto A = mat(a, 0, nn);
  (void)s;
  for (int t = 0; t <= tsteps - 1; t++)
    for (int i = 1; i <= nn - 2; i++)
      for (int j = 1; j <= nn - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] + A[i][j - 1] + A[i][j] + A[i][j + 1] +
                   A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) /
                  9.0;
}
