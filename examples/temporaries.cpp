// Temporaries: an attention block, out = softmax(q * kt) * v, as one memjit
// function that calls the kernel library's sgemm and softmax with two
// seq x seq buffers it allocs. Neither escapes the function, so both come
// from the calling thread's arena (memjit/runtime/arena.h): after the first
// call, no malloc and the same memory every call. A small static scratch
// array would be a stack slot instead; a returned alloc stays malloc'd.
#include <cmath>
#include <cstdio>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/arena.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;

int fail(const Error& e) { return std::fprintf(stderr, "%s\n", e.str().c_str()), 1; }

int main() {
  codegen::Module module("attention");
  if (Error e = codegen::addSgemm(module, "sgemm")) return fail(e);
  if (Error e = codegen::addSoftmax(module, "softmax")) return fail(e);
  // [docs:attention]
  auto type = parseFunctionType("(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()");
  if (!type) return fail(type.error());
  codegen::FunctionBuilder b(module, "attention", *type);
  codegen::Value q = b.arg(0), kt = b.arg(1), v = b.arg(2), out = b.arg(3);
  codegen::Value seq = b.dim(q, 0);
  const MemRefType square(ElementType::F32, {kDynamic, kDynamic});
  codegen::Value s = b.alloc(square, {seq, seq});  // only passed to calls that read and write it:
  codegen::Value p = b.alloc(square, {seq, seq});  // temporaries, released when attention returns
  b.call("sgemm", {q, kt, s});
  b.call("softmax", {s, p});
  b.call("sgemm", {p, v, out});
  b.ret();
  if (Error e = b.finish()) return fail(e);
  // [docs:end]
  auto jit = jit::Jit::create();
  if (!jit) return fail(jit.error());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error());
  auto fn = loaded->function("attention");
  if (!fn) return fail(fn.error());
  auto* attention = fn->cInterfaceAs<void(Mat*, Mat*, Mat*, Mat*)>();

  const std::int64_t n = 256, d = 64;
  std::vector<float> qv(n * d), ktv(d * n), vv(n * d), outv(n * d);
  for (std::size_t i = 0; i < qv.size(); ++i) {
    qv[i] = static_cast<float>(i % 13) / 64.0f;
    ktv[i] = static_cast<float>(i % 7) / 32.0f;
    vv[i] = static_cast<float>(i % 5);
  }
  Mat qm{qv.data(), qv.data(), 0, {n, d}, {d, 1}}, ktm{ktv.data(), ktv.data(), 0, {d, n}, {n, 1}},
      vm{vv.data(), vv.data(), 0, {n, d}, {d, 1}}, om{outv.data(), outv.data(), 0, {n, d}, {d, 1}};
  // [docs:calls]
  for (int call = 1; call <= 4; ++call) {
    attention(&qm, &ktm, &vm, &om);
    const runtime::ArenaStats a = runtime::arenaStats();
    std::printf("call %d: %zu chunk mallocs so far, %zu KiB kept, last block at %p, %zu bytes in use\n", call,
                a.chunkAllocations, a.bytesKept / 1024, a.lastBlock, a.bytesInUse);
  }
  memjit_arena_trim();  // give the kept chunk back (thread exit does too)
  // [docs:end]
  // Each output row is a convex combination of v's rows: within [0, 4].
  for (float x : outv)
    if (!(x >= 0 && x <= 4.0001f)) return std::fprintf(stderr, "wrong result %g\n", static_cast<double>(x)), 1;
  if (runtime::arenaStats().bytesKept != 0) return std::fprintf(stderr, "trim kept memory\n"), 1;
  return 0;
}
