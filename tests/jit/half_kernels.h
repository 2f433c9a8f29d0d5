// Kernels with f16 and bf16 at the boundary, built with the codegen builder:
// the JIT test calls them through both invokers and DLPack, the AOT generator
// compiles the same ones into an object the AOT test links. Most move bits
// without arithmetic, so every pattern (NaN payloads, -0, subnormals) must
// come back unchanged; `hmul`/`bmul` check that values, not only bits, travel.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/module.h"
#include "memjit/type_syntax.h"

namespace memjit::test {

/// Patterns every path must carry unchanged.
inline const std::vector<std::uint16_t> kF16EdgeBits = {
    0x0000, 0x8000,  // +0, -0
    0x0001, 0x03ff,  // smallest and largest subnormal
    0x0400, 0x3c00, 0x3555, 0xc000,
    0x7bff, 0xfbff,  // +-max
    0x7c00, 0xfc00,  // +-inf
    0x7e00, 0x7e55, 0xfe01,  // quiet NaNs with payloads
    0x7d01, 0xfc02,  // signalling NaNs
};
inline const std::vector<std::uint16_t> kBF16EdgeBits = {
    0x0000, 0x8000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x4049, 0xc000,
    0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fd5, 0xffc1, 0x7f81, 0xff82,
};

/// The scalar order of `spill`: 14 half/float arguments after three memrefs,
/// so six of them (two f32 among them) go on the stack on x86-64.
inline constexpr const char* kSpillType =
    "(memref<?xf16>, memref<?xbf16>, memref<?xf32>, f16, bf16, f32, f16, bf16, f32, f16, bf16, "
    "f32, f16, bf16, f32, f16, bf16) -> bf16";

inline Error addHalfKernels(codegen::Module& m) {
  using codegen::FunctionBuilder;
  using codegen::Value;
  auto build = [&](const char* name, const char* type, auto body) -> Error {
    MEMJIT_ASSIGN_OR_RETURN(FunctionType t, parseFunctionType(type));
    FunctionBuilder b(m, name, t);
    body(b);
    return b.finish();
  };
  auto pass = [](FunctionBuilder& b) { b.ret({b.arg(0)}); };
  auto mul = [](FunctionBuilder& b) { b.ret({b.arg(0) * b.arg(1)}); };
  auto load = [](FunctionBuilder& b) { b.ret({b.load(b.arg(0), {b.arg(1)})}); };
  auto copy = [](FunctionBuilder& b) {
    Value in = b.arg(0), out = b.arg(1);
    b.forLoop(b.index(0), b.dim(in, 0), b.index(1), [&](Value i) { b.store(b.load(in, {i}), out, {i}); });
    b.ret();
  };
  MEMJIT_TRY(build("hpass", "(f16) -> f16", pass));
  MEMJIT_TRY(build("bpass", "(bf16) -> bf16", pass));
  MEMJIT_TRY(build("hmul", "(f16, f16) -> f16", mul));
  MEMJIT_TRY(build("bmul", "(bf16, bf16) -> bf16", mul));
  MEMJIT_TRY(build("hload", "(memref<?xf16>, index) -> f16", load));
  MEMJIT_TRY(build("bload", "(memref<?xbf16>, index) -> bf16", load));
  MEMJIT_TRY(build("hcopy", "(memref<?xf16>, memref<?xf16>) -> ()", copy));
  MEMJIT_TRY(build("bcopy", "(memref<?xbf16>, memref<?xbf16>) -> ()", copy));
  // Stores each scalar argument in order (f16 into the first memref, bf16
  // into the second, f32 into the third) and returns the last one.
  MEMJIT_TRY(build("spill", kSpillType, [](FunctionBuilder& b) {
    std::int64_t next[3] = {0, 0, 0};
    for (std::size_t a = 3; a < 17; ++a) {
      Value v = b.arg(a);
      const ElementType e = std::get<ElementType>(v.type());
      const std::size_t which = e == ElementType::F16 ? 0 : e == ElementType::BF16 ? 1 : 2;
      b.store(v, b.arg(which), {b.index(next[which]++)});
    }
    b.ret({b.arg(16)});
  }));
  // A fresh unranked copy of an unranked rank-1 input: the typed invoker
  // returns it as OwnedUnrankedMemRef<f16>.
  MEMJIT_TRY(build("hclone", "(memref<*xf16>) -> memref<*xf16>", [](FunctionBuilder& b) {
    const MemRefType vec(ElementType::F16, {kDynamic});
    Value in = b.castToRanked(b.arg(0), vec);
    Value n = b.dim(in, 0);
    Value out = b.alloc(vec, {n});
    b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(b.load(in, {i}), out, {i}); });
    b.ret({b.castToUnranked(out)});
  }));
  return Error::success();
}

}  // namespace memjit::test
