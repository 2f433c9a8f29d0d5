// correlation and covariance (PolyBench/C 4.2.1 datamining), as PolyBench writes them.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(correlation) {
  const int m = int(n[0]), nn = int(n[1]);
  const double float_n = s[0];
  auto data = mat(a, 0, m), corr = mat(a, 1, m);
  double *mean = vec(a, 2), *stddev = vec(a, 3);
  const double eps = 0.1;
  POLYBENCH_OMP_FOR
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < nn; i++) mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  POLYBENCH_OMP_FOR
  for (int j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (int i = 0; i < nn; i++) stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = std::sqrt(stddev[j]);
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= std::sqrt(float_n) * stddev[j];
    }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (int j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (int k = 0; k < nn; k++) corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
}

POLYBENCH_TWIN(covariance) {
  const int m = int(n[0]), nn = int(n[1]);
  const double float_n = s[0];
  auto data = mat(a, 0, m), cov = mat(a, 1, m);
  double* mean = vec(a, 2);
  POLYBENCH_OMP_FOR
  for (int j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (int i = 0; i < nn; i++) mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < nn; i++)
    for (int j = 0; j < m; j++) data[i][j] -= mean[j];
  POLYBENCH_OMP_FOR
  for (int i = 0; i < m; i++)
    for (int j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (int k = 0; k < nn; k++) cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
}
