// gemm, gemver, gesummv, symm, syr2k, syrk, trmm (PolyBench/C 4.2.1 linear-algebra/blas), as PolyBench writes them.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(gemm) {
  const int ni = int(n[0]), nj = int(n[1]), nk = int(n[2]);
  const double alpha = s[0], beta = s[1];
  auto C = mat(a, 0, nj), A = mat(a, 1, nk), B = mat(a, 2, nj);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++) C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) C[i][j] += alpha * A[i][k] * B[k][j];
  }
}

POLYBENCH_TWIN(gemver) {
  const int nn = int(n[0]);
  const double alpha = s[0], beta = s[1];
  auto A = mat(a, 0, nn);
  double *u1 = vec(a, 1), *v1 = vec(a, 2), *u2 = vec(a, 3), *v2 = vec(a, 4), *w = vec(a, 5), *x = vec(a, 6),
         *y = vec(a, 7), *z = vec(a, 8);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) x[i] = x[i] + beta * A[j][i] * y[j];
  for (int i = 0; i < nn; i++) x[i] = x[i] + z[i];
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) w[i] = w[i] + alpha * A[i][j] * x[j];
}

POLYBENCH_TWIN(gesummv) {
  const int nn = int(n[0]);
  const double alpha = s[0], beta = s[1];
  auto A = mat(a, 0, nn), B = mat(a, 1, nn);
  double *tmp = vec(a, 2), *x = vec(a, 3), *y = vec(a, 4);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++) {
    tmp[i] = 0;
    y[i] = 0;
    for (int j = 0; j < nn; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

POLYBENCH_TWIN(symm) {
  const int m = int(n[0]), nn = int(n[1]);
  const double alpha = s[0], beta = s[1];
  auto C = mat(a, 0, nn), A = mat(a, 1, m), B = mat(a, 2, nn);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < nn; j++) {
      double temp2 = 0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

POLYBENCH_TWIN(syr2k) {
  const int m = int(n[0]), nn = int(n[1]);
  const double alpha = s[0], beta = s[1];
  auto C = mat(a, 0, nn), A = mat(a, 1, m), B = mat(a, 2, m);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < nn; j++) C[i][j] *= beta;
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int k = 0; k < m; k++)
      for (int j = 0; j < nn; j++) C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
}

POLYBENCH_TWIN(syrk) {
  const int m = int(n[0]), nn = int(n[1]);
  const double alpha = s[0], beta = s[1];
  auto C = mat(a, 0, nn), A = mat(a, 1, m);
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j <= i; j++) C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++) C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

POLYBENCH_TWIN(trmm) {
  const int m = int(n[0]), nn = int(n[1]);
  const double alpha = s[0];
  auto A = mat(a, 0, m), B = mat(a, 1, nn);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < nn; j++) {
      for (int k = i + 1; k < m; k++) B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}
