// deriche (f32, as PolyBench's header declares it), floyd-warshall and nussinov (i32) from PolyBench/C 4.2.1
// medley, with memjit's builder.
#include "kernel_writer.h"
#include "native/twins.h"

namespace memjit::polybench {
namespace {

constexpr ElementType F32 = ElementType::F32, I32 = ElementType::I32, I8 = ElementType::I8;
using Options = codegen::FunctionOptions;

// One recursive pass of the filter along a row or a column: out[t] = ca * in_1 + cb * in_2 + b1 * out_1 + b2 *
// out_2, where in_1 is in[t] (forward, with in_2 the previous input) or the next inputs (backward). `at(t)` maps
// the pass's step to the element's indices.
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

  w.outer(w.zero, W, [&](Value i) {  // ym1, ym2, xm1
    w.carry(w.zero, H, {z, z, z}, [&](Value j, const std::vector<Value>& c) {
      Value in = w.ld(imgIn, {i, j});
      Value y = a1 * in + a2 * c[2] + b1 * c[0] + b2 * c[1];
      w.st(y, y1, {i, j});
      return std::vector<Value>{y, c[0], in};
    });
  });
  w.outer(w.zero, W, [&](Value i) {  // yp1, yp2, xp1, xp2
    w.carry(w.zero, H, {z, z, z, z}, [&](Value t, const std::vector<Value>& c) {
      Value j = H - 1 - t;
      Value y = a3 * c[2] + a4 * c[3] + b1 * c[0] + b2 * c[1];
      w.st(y, y2, {i, j});
      return std::vector<Value>{y, c[0], w.ld(imgIn, {i, j}), c[2]};
    });
  });
  w.outer(w.zero, W, [&](Value i) {
    w.loop(w.zero, H, [&](Value j) { w.st(c1 * (w.ld(y1, {i, j}) + w.ld(y2, {i, j})), imgOut, {i, j}); });
  });
  w.outer(w.zero, H, [&](Value j) {  // ym1, ym2, tm1
    w.carry(w.zero, W, {z, z, z}, [&](Value i, const std::vector<Value>& c) {
      Value in = w.ld(imgOut, {i, j});
      Value y = a5 * in + a6 * c[2] + b1 * c[0] + b2 * c[1];
      w.st(y, y1, {i, j});
      return std::vector<Value>{y, c[0], in};
    });
  });
  w.outer(w.zero, H, [&](Value j) {  // yp1, yp2, tp1, tp2
    w.carry(w.zero, W, {z, z, z, z}, [&](Value t, const std::vector<Value>& c) {
      Value i = W - 1 - t;
      Value y = a7 * c[2] + a8 * c[3] + b1 * c[0] + b2 * c[1];
      w.st(y, y2, {i, j});
      return std::vector<Value>{y, c[0], w.ld(imgOut, {i, j}), c[2]};
    });
  });
  w.outer(w.zero, W, [&](Value i) {
    w.loop(w.zero, H, [&](Value j) { w.st(c2 * (w.ld(y1, {i, j}) + w.ld(y2, {i, j})), imgOut, {i, j}); });
  });
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
