// deriche (float, as PolyBench's header makes it), floyd-warshall and nussinov (int) from PolyBench/C 4.2.1
// medley, as PolyBench writes them.
#include "twin.h"

using namespace polybench_twin;

POLYBENCH_TWIN(deriche) {
  const int w = int(n[0]), h = int(n[1]);
  const float alpha = float(s[0]);
  auto imgIn = mat<float>(a, 0, h), imgOut = mat<float>(a, 1, h), y1 = mat<float>(a, 2, h), y2 = mat<float>(a, 3, h);
  float k, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2;
  k = (1.0f - expf(-alpha)) * (1.0f - expf(-alpha)) / (1.0f + 2.0f * alpha * expf(-alpha) - expf(2.0f * alpha));
  a1 = a5 = k;
  a2 = a6 = k * expf(-alpha) * (alpha - 1.0f);
  a3 = a7 = k * expf(-alpha) * (alpha + 1.0f);
  a4 = a8 = -k * expf(-2.0f * alpha);
  b1 = powf(2.0f, -alpha);
  b2 = -expf(-2.0f * alpha);
  c1 = c2 = 1;
  POLYBENCH_OMP_FOR
  for (int i = 0; i < w; i++) {
    float ym1 = 0.0f, ym2 = 0.0f, xm1 = 0.0f;
    for (int j = 0; j < h; j++) {
      y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < w; i++) {
    float yp1 = 0.0f, yp2 = 0.0f, xp1 = 0.0f, xp2 = 0.0f;
    for (int j = h - 1; j >= 0; j--) {
      y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++) imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);
  POLYBENCH_OMP_FOR
  for (int j = 0; j < h; j++) {
    float tm1 = 0.0f, ym1 = 0.0f, ym2 = 0.0f;
    for (int i = 0; i < w; i++) {
      y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }
  POLYBENCH_OMP_FOR
  for (int j = 0; j < h; j++) {
    float tp1 = 0.0f, tp2 = 0.0f, yp1 = 0.0f, yp2 = 0.0f;
    for (int i = w - 1; i >= 0; i--) {
      y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }
  POLYBENCH_OMP_FOR
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++) imgOut[i][j] = c2 * (y1[i][j] + y2[i][j]);
}

POLYBENCH_TWIN(floyd_warshall) {
  const int nn = int(n[0]);
  auto path = mat<std::int32_t>(a, 0, nn);
  (void)s;
  for (int k = 0; k < nn; k++)
    for (int i = 0; i < nn; i++)
      for (int j = 0; j < nn; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}

#define POLYBENCH_MATCH(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define POLYBENCH_MAX_SCORE(s1, s2) ((s1 >= s2) ? s1 : s2)

POLYBENCH_TWIN(nussinov) {
  const int nn = int(n[0]);
  const std::int8_t* seq = vec<std::int8_t>(a, 0);
  auto table = mat<std::int32_t>(a, 1, nn);
  (void)s;
  for (int i = nn - 1; i >= 0; i--) {
    for (int j = i + 1; j < nn; j++) {
      if (j - 1 >= 0) table[i][j] = POLYBENCH_MAX_SCORE(table[i][j], table[i][j - 1]);
      if (i + 1 < nn) table[i][j] = POLYBENCH_MAX_SCORE(table[i][j], table[i + 1][j]);
      if (j - 1 >= 0 && i + 1 < nn) {
        if (i < j - 1)
          table[i][j] = POLYBENCH_MAX_SCORE(table[i][j], table[i + 1][j - 1] + POLYBENCH_MATCH(seq[i], seq[j]));
        else
          table[i][j] = POLYBENCH_MAX_SCORE(table[i][j], table[i + 1][j - 1]);
      }
      for (int k = i + 1; k < j; k++) table[i][j] = POLYBENCH_MAX_SCORE(table[i][j], table[i][k] + table[k + 1][j]);
    }
  }
}
