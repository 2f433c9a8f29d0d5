// An int8 dot product (u8 x s8 -> i32) two ways: the plain scalar loop, which
// memjit's pipeline turns into vpdpbusd on a VNNI CPU (as g++ does), and
// explicit vectors with FunctionBuilder::dot; plus a bf16 dot product with
// vdpbf16ps's rounding. Each is checked against C++; the last line says which
// instruction the host ran.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;
using U8 = runtime::StridedMemRef<std::uint8_t, 1>;
using S8 = runtime::StridedMemRef<std::int8_t, 1>;
using BF16s = runtime::StridedMemRef<std::uint16_t, 1>;

int main() {
  codegen::Module m("dot_example");
  const FunctionType type = *parseFunctionType("(memref<?xui8>, memref<?xsi8>) -> i32");
  {
    // [docs:loop]
    // dot_loop(a, b) = sum of i32(a[i]) * i32(b[i]): ui8 zero-extends, si8
    // sign-extends, the i32 sum wraps. Nothing VNNI-specific is written.
    codegen::FunctionBuilder b(m, "dot_loop", type);
    Value a = b.arg(0), x = b.arg(1);
    auto sum = b.forLoop(b.index(0), b.dim(a, 0), b.index(1), {b.i32(0)}, [&](Value i, const std::vector<Value>& s) {
      return std::vector<Value>{s[0] + b.cast(b.load(a, {i}), ElementType::I32) *
                                           b.cast(b.load(x, {i}), ElementType::I32)};
    });
    b.ret({sum[0]});
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  {
    // [docs:vectors]
    // dot_vec(a, b): 16 i32 accumulators, each taking the four products of its
    // group of 4 bytes per step (one vpdpbusd on a zmm register); the tail
    // (n % 64 bytes) in a scalar loop.
    codegen::FunctionBuilder b(m, "dot_vec", type);
    Value a = b.arg(0), x = b.arg(1), n = b.dim(a, 0);
    Value body = n - n % 64;
    auto acc = b.forLoop(b.index(0), body, b.index(64), {b.splat(b.i32(0), 16)},
                         [&](Value i, const std::vector<Value>& s) {
                           return std::vector<Value>{b.dot(s[0], b.vectorLoad(a, {i}, 64), b.vectorLoad(x, {i}, 64))};
                         });
    auto sum = b.forLoop(body, n, b.index(1), {b.reduce(codegen::FunctionBuilder::VectorReduction::Add, acc[0])},
                         [&](Value i, const std::vector<Value>& s) {
                           return std::vector<Value>{s[0] + b.cast(b.load(a, {i}), ElementType::I32) *
                                                                b.cast(b.load(x, {i}), ElementType::I32)};
                         });
    b.ret({sum[0]});
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  {
    // [docs:bf16]
    // dot_bf16(a, b) over 2k bf16 pairs: vdpbf16ps per 32 values, as the
    // instruction rounds (flushing denormals), then the 16 lanes in order.
    codegen::FunctionBuilder b(m, "dot_bf16", *parseFunctionType("(memref<?xbf16>, memref<?xbf16>) -> f32"));
    Value a = b.arg(0), x = b.arg(1);
    auto acc = b.forLoop(b.index(0), b.dim(a, 0), b.index(32), {b.splat(b.f32(0), 16)},
                         [&](Value i, const std::vector<Value>& s) {
                           return std::vector<Value>{b.dot(s[0], b.vectorLoad(a, {i}, 32), b.vectorLoad(x, {i}, 32))};
                         });
    b.ret({b.reduce(codegen::FunctionBuilder::VectorReduction::Add, acc[0])});
    // [docs:end]
    if (Error e = b.finish()) return std::fprintf(stderr, "%s\n", e.str().c_str()), 1;
  }
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O3});
  if (!jit) return std::fprintf(stderr, "%s\n", jit.error().str().c_str()), 1;
  auto mod = jit->add(std::move(m));
  if (!mod) return std::fprintf(stderr, "%s\n", mod.error().str().c_str()), 1;
  using Fn = std::int32_t (*)(U8*, S8*);
  auto loop = reinterpret_cast<Fn>(*mod->symbol("_mlir_ciface_dot_loop"));
  auto vec = reinterpret_cast<Fn>(*mod->symbol("_mlir_ciface_dot_vec"));
  auto bf16 = reinterpret_cast<float (*)(BF16s*, BF16s*)>(*mod->symbol("_mlir_ciface_dot_bf16"));

  const std::int64_t n = 100003;  // not a multiple of 64: the tail loop runs
  std::vector<std::uint8_t> a(n);
  std::vector<std::int8_t> x(n);
  std::uint32_t s = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    a[i] = i % 5 ? static_cast<std::uint8_t>(s >> 24) : 255;  // 255 x -128: the largest products
    x[i] = i % 5 ? static_cast<std::int8_t>(s >> 16) : -128;
  }
  std::uint32_t want = 0;  // the sum modulo 2^32, as i32 wraps
  for (std::int64_t i = 0; i < n; ++i) want += static_cast<std::uint32_t>(std::int32_t{a[i]} * std::int32_t{x[i]});
  U8 va{a.data(), a.data(), 0, {n}, {1}};
  S8 vx{x.data(), x.data(), 0, {n}, {1}};
  const std::int32_t viaLoop = loop(&va, &vx), viaVectors = vec(&va, &vx);

  // bf16 halves of small integers: every product and sum exact, so C++ in float gives the same value.
  std::vector<std::uint16_t> p(64), q(64);
  float wantBf16 = 0;
  for (int i = 0; i < 64; ++i) {
    const float u = static_cast<float>(i % 7 - 3), v = static_cast<float>(i % 5);
    std::uint32_t bits;
    std::memcpy(&bits, &u, 4), p[i] = static_cast<std::uint16_t>(bits >> 16);
    std::memcpy(&bits, &v, 4), q[i] = static_cast<std::uint16_t>(bits >> 16);
    wantBf16 += u * v;
  }
  BF16s vp{p.data(), p.data(), 0, {64}, {1}}, vq{q.data(), q.data(), 0, {64}, {1}};
  const float viaBf16 = bf16(&vp, &vq);

  auto text = mod->assembly("dot_loop");
  const bool vnni = text && text->find("vpdpbusd") != std::string::npos;
  const bool ok = viaLoop == static_cast<std::int32_t>(want) && viaVectors == viaLoop && viaBf16 == wantBf16;
  std::printf("u8 x s8 over %lld bytes: %d (loop), %d (vectors); bf16: %g; loop on %s: %s\n",
              static_cast<long long>(n), viaLoop, viaVectors, static_cast<double>(viaBf16),
              vnni ? "vpdpbusd" : "the portable sequence", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
