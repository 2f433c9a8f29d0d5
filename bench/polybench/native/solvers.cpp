// cholesky, durbin, gramschmidt, lu, ludcmp, trisolv (PolyBench/C 4.2.1 linear-algebra/solvers), as PolyBench
// writes them. durbin's local array z[N] is the scratch array passed third.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(cholesky) {
  const int nn = int(n[0]);
  auto A = mat(a, 0, nn);
  (void)s;
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++) A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (int k = 0; k < i; k++) A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = std::sqrt(A[i][i]);
  }
}

POLYBENCH_TWIN(durbin) {
  const int nn = int(n[0]);
  double *r = vec(a, 0), *y = vec(a, 1), *z = vec(a, 2);
  (void)s;
  y[0] = -r[0];
  double beta = 1.0;
  double alpha = -r[0];
  for (int k = 1; k < nn; k++) {
    beta = (1 - alpha * alpha) * beta;
    double sum = 0.0;
    for (int i = 0; i < k; i++) sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (int i = 0; i < k; i++) z[i] = y[i] + alpha * y[k - i - 1];
    for (int i = 0; i < k; i++) y[i] = z[i];
    y[k] = alpha;
  }
}

POLYBENCH_TWIN(gramschmidt) {
  const int m = int(n[0]), nn = int(n[1]);
  auto A = mat(a, 0, nn), R = mat(a, 1, nn), Q = mat(a, 2, nn);
  (void)s;
  for (int k = 0; k < nn; k++) {
    double nrm = 0.0;
    for (int i = 0; i < m; i++) nrm += A[i][k] * A[i][k];
    R[k][k] = std::sqrt(nrm);
    for (int i = 0; i < m; i++) Q[i][k] = A[i][k] / R[k][k];
    POLYBENCH_OMP_FOR
    for (int j = k + 1; j < nn; j++) {
      R[k][j] = 0.0;
      for (int i = 0; i < m; i++) R[k][j] += Q[i][k] * A[i][j];
      for (int i = 0; i < m; i++) A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}

POLYBENCH_TWIN(lu) {
  const int nn = int(n[0]);
  auto A = mat(a, 0, nn);
  (void)s;
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++) A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    for (int j = i; j < nn; j++)
      for (int k = 0; k < i; k++) A[i][j] -= A[i][k] * A[k][j];
  }
}

POLYBENCH_TWIN(ludcmp) {
  const int nn = int(n[0]);
  auto A = mat(a, 0, nn);
  double *b = vec(a, 1), *x = vec(a, 2), *y = vec(a, 3);
  (void)s;
  double w;
  for (int i = 0; i < nn; i++) {
    for (int j = 0; j < i; j++) {
      w = A[i][j];
      for (int k = 0; k < j; k++) w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (int j = i; j < nn; j++) {
      w = A[i][j];
      for (int k = 0; k < i; k++) w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (int i = 0; i < nn; i++) {
    w = b[i];
    for (int j = 0; j < i; j++) w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (int i = nn - 1; i >= 0; i--) {
    w = y[i];
    for (int j = i + 1; j < nn; j++) w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
}

POLYBENCH_TWIN(trisolv) {
  const int nn = int(n[0]);
  auto L = mat(a, 0, nn);
  double *x = vec(a, 1), *b = vec(a, 2);
  (void)s;
  for (int i = 0; i < nn; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
