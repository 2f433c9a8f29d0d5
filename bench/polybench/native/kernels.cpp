// 2mm, 3mm, atax, bicg, doitgen, mvt (PolyBench/C 4.2.1 linear-algebra/kernels), as PolyBench writes them.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(2mm) {
  const int ni = int(n[0]), nj = int(n[1]), nk = int(n[2]), nl = int(n[3]);
  const double alpha = s[0], beta = s[1];
  auto tmp = mat(a, 0, nj), A = mat(a, 1, nk), B = mat(a, 2, nj), C = mat(a, 3, nl), D = mat(a, 4, nl);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (int k = 0; k < nk; ++k) tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (int k = 0; k < nj; ++k) D[i][j] += tmp[i][k] * C[k][j];
    }
}

POLYBENCH_TWIN(3mm) {
  const int ni = int(n[0]), nj = int(n[1]), nk = int(n[2]), nl = int(n[3]), nm = int(n[4]);
  auto E = mat(a, 0, nj), A = mat(a, 1, nk), B = mat(a, 2, nj), F = mat(a, 3, nl), C = mat(a, 4, nm),
       D = mat(a, 5, nl), G = mat(a, 6, nl);
  (void)s;
  POLYBENCH_OMP_FOR
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (int k = 0; k < nk; ++k) E[i][j] += A[i][k] * B[k][j];
    }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nj; i++)
    for (int j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (int k = 0; k < nm; ++k) F[i][j] += C[i][k] * D[k][j];
    }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (int k = 0; k < nj; ++k) G[i][j] += E[i][k] * F[k][j];
    }
}

POLYBENCH_TWIN(atax) {
  const int m = int(n[0]), nn = int(n[1]);
  auto A = mat(a, 0, nn);
  double *x = vec(a, 1), *y = vec(a, 2), *tmp = vec(a, 3);
  (void)s;
  for (int i = 0; i < nn; i++) y[i] = 0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < nn; j++) tmp[i] = tmp[i] + A[i][j] * x[j];
    for (int j = 0; j < nn; j++) y[j] = y[j] + A[i][j] * tmp[i];
  }
}

POLYBENCH_TWIN(bicg) {
  const int m = int(n[0]), nn = int(n[1]);
  auto A = mat(a, 0, m);
  double *s_ = vec(a, 1), *q = vec(a, 2), *p = vec(a, 3), *r = vec(a, 4);
  (void)s;
  for (int i = 0; i < m; i++) s_[i] = 0;
  for (int i = 0; i < nn; i++) {
    q[i] = 0.0;
    for (int j = 0; j < m; j++) {
      s_[j] = s_[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

POLYBENCH_TWIN(doitgen) {
  const int nq = int(n[0]), nr = int(n[1]), np = int(n[2]);
  auto A = cube(a, 0, nq, np);
  auto C4 = mat(a, 1, np);
  double* sum = vec(a, 2);
  (void)s;
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int t = 0; t < np; t++) sum[p] += A[r][q][t] * C4[t][p];
      }
      for (int p = 0; p < np; p++) A[r][q][p] = sum[p];
    }
}

POLYBENCH_TWIN(mvt) {
  const int nn = int(n[0]);
  double *x1 = vec(a, 0), *x2 = vec(a, 1), *y_1 = vec(a, 2), *y_2 = vec(a, 3);
  auto A = mat(a, 4, nn);
  (void)s;
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) x1[i] = x1[i] + A[i][j] * y_1[j];
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) x2[i] = x2[i] + A[j][i] * y_2[j];
}
