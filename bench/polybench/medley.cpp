// deriche (f32, as PolyBench's header declares it), floyd-warshall and nussinov (i32) from PolyBench/C 4.2.1
// medley, with memjit's builder.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F32 = ElementType::F32, I32 = ElementType::I32, I8 = ElementType::I8;
using Options = codegen::FunctionOptions;

Error buildDeriche(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  auto& b = w.b;
  Value alpha = w.arg(0), imgIn = w.arg(1), imgOut = w.arg(2), y1 = w.arg(3), y2 = w.arg(4);
  Value W = b.dim(imgIn, 0), H = b.dim(imgIn, 1);
  Value e = b.exp(-alpha);
  Value kc = (1.0f - e) * (1.0f - e) / (1.0f + 2.0f * alpha * e - b.exp(2.0f * alpha));
  Value a1 = kc, a5 = kc;
  Value a2 = kc * e * (alpha - 1.0f), a6 = a2;
  Value a3 = kc * e * (alpha + 1.0f), a7 = a3;
  Value a4 = -kc * b.exp(-2.0f * alpha), a8 = a4;
  Value b1 = b.pow(b.f32(2.0f), -alpha);
  Value b2 = -b.exp(-2.0f * alpha);
  Value c1 = b.f32(1.0f), c2 = c1;
  Value z = b.f32(0.0f);

  // PolyBench's four recursive passes: forward and backward along the rows of imgIn, then along the columns of
  // imgOut. `at(o, t)` is the element of line o at step t.
  auto at = [](bool rows, Value o, Value t) { return rows ? std::vector<Value>{o, t} : std::vector<Value>{t, o}; };
  auto forward = [&](bool rows, Value lines, Value length, Value in, Value ca, Value cb) {
    w.outer(w.zero, lines, [&](Value o) {  // carried: y_1, y_2, x_1
      w.carry(w.zero, length, {z, z, z}, [&](Value t, const std::vector<Value>& c) {
        Value x = w.ld(in, at(rows, o, t));
        Value y = ca * x + cb * c[2] + b1 * c[0] + b2 * c[1];
        w.st(y, y1, at(rows, o, t));
        return std::vector<Value>{y, c[0], x};
      });
    });
  };
  auto backward = [&](bool rows, Value lines, Value length, Value in, Value ca, Value cb) {
    w.outer(w.zero, lines, [&](Value o) {  // carried: y_1, y_2, x_1, x_2 (the following ones)
      w.carry(w.zero, length, {z, z, z, z}, [&](Value t, const std::vector<Value>& c) {
        auto element = at(rows, o, length - 1 - t);
        Value y = ca * c[2] + cb * c[3] + b1 * c[0] + b2 * c[1];
        w.st(y, y2, element);
        return std::vector<Value>{y, c[0], w.ld(in, element), c[2]};
      });
    });
  };
  auto combine = [&](Value c) {
    w.outer(w.zero, W, [&](Value i) {
      w.loop(w.zero, H, [&](Value j) { w.st(c * (w.ld(y1, {i, j}) + w.ld(y2, {i, j})), imgOut, {i, j}); });
    });
  };
  forward(true, W, H, imgIn, a1, a2);
  backward(true, W, H, imgIn, a3, a4);
  combine(c1);
  forward(false, H, W, imgOut, a5, a6);
  backward(false, H, W, imgOut, a7, a8);
  combine(c2);
  return w.finish();
}

Error buildFloydWarshall(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  Value path = w.arg(0), N = w.b.dim(path, 0);
  w.loop(w.zero, N, [&](Value kk) {
    w.loop(w.zero, N, [&](Value i) {
      w.loop(w.zero, N, [&](Value j) {
        Value pij = w.ld(path, {i, j}), through = w.ld(path, {i, kk}) + w.ld(path, {kk, j});
        w.st(w.b.select(pij < through, pij, through), path, {i, j});
      });
    });
  });
  return w.finish();
}

// PolyBench's guards `j-1 >= 0` and `i+1 < N` always hold inside the loop nest (0 <= i < j < N); the C keeps them
// (and the compilers drop them), here they are left out.
Error buildNussinov(codegen::Module& m, const std::string& name, const Kernel& k, const Options& o, bool par) {
  KernelWriter w(m, name, k, o, par);
  auto& b = w.b;
  Value seq = w.arg(0), table = w.arg(1), N = b.dim(table, 0);
  auto maxScore = [&](Value s1, Value s2) { return b.select(s1 >= s2, s1, s2); };
  w.down(w.zero, N, [&](Value i) {
    w.loop(i + 1, N, [&](Value j) {
      Value t = maxScore(w.ld(table, {i, j}), w.ld(table, {i, j - 1}));
      t = maxScore(t, w.ld(table, {i + 1, j}));
      Value diagonal = w.ld(table, {i + 1, j - 1});
      Value pair = b.cast(w.ld(seq, {i}), I32) + b.cast(w.ld(seq, {j}), I32);
      Value match = b.select(pair == 3, b.i32(1), b.i32(0));
      t = maxScore(t, b.select(i < j - 1, diagonal + match, diagonal));
      t = w.sum(i + 1, j, t, [&](Value kk, Value acc) {
        return maxScore(acc, w.ld(table, {i, kk}) + w.ld(table, {kk + 1, j}));
      });
      w.st(t, table, {i, j});
    });
  });
  return w.finish();
}

void initDeriche(Data& d) {
  const int w = int(d.p[0]), h = int(d.p[1]);
  d.s = {0.25};
  float* imgIn = d.f32(0);
  for (int i = 0; i < w; i++)
    for (int j = 0; j < h; j++) imgIn[i * h + j] = (float)((313 * i + 991 * j) % 65536) / 65535.0f;
}

void initFloydWarshall(Data& d) {
  const int n = int(d.p[0]);
  std::int32_t* path = d.i32(0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      path[i * n + j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0) path[i * n + j] = 999;
    }
}

void initNussinov(Data& d) {
  const int n = int(d.p[0]);
  auto* seq = d.a[0].as<std::int8_t>();
  for (int i = 0; i < n; i++) seq[i] = std::int8_t((i + 1) % 4);
  std::int32_t* table = d.i32(1);
  for (int i = 0; i < n * n; i++) table[i] = 0;
}

}  // namespace

std::vector<Kernel> medley() {
  return {
      {.name = "deriche",
       .sizeNames = {"W", "H"},
       .sizes = {{{64, 64}, {192, 128}, {720, 480}, {4096, 2160}}},
       .scalars = {{"alpha", F32}},
       .arrays = {{"imgIn", F32, {0, 1}}, {"imgOut", F32, {0, 1}, true}, {"y1", F32, {0, 1}}, {"y2", F32, {0, 1}}},
       .init = initDeriche,
       .build = buildDeriche,
       .gcc = polybench_deriche_gcc,
       .clang = polybench_deriche_clang,
       .omp = polybench_deriche_omp},
      {.name = "floyd-warshall",
       .sizeNames = {"N"},
       .sizes = {{{60}, {180}, {500}, {2800}}},
       .scalars = {},
       .arrays = {{"path", I32, {0, 0}, true}},
       .init = initFloydWarshall,
       .build = buildFloydWarshall,
       .gcc = polybench_floyd_warshall_gcc,
       .clang = polybench_floyd_warshall_clang},
      {.name = "nussinov",
       .sizeNames = {"N"},
       .sizes = {{{60}, {180}, {500}, {2500}}},
       .scalars = {},
       .arrays = {{"seq", I8, {0}}, {"table", I32, {0, 0}, true}},
       .init = initNussinov,
       .build = buildNussinov,
       .gcc = polybench_nussinov_gcc,
       .clang = polybench_nussinov_clang},
  };
}

}  // namespace memjit::polybench
