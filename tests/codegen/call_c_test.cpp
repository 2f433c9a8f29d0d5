// FunctionBuilder::callC (builder.h) against callees compiled as clang compiles
// C: on x86-64 clang takes a char, short or bool argument to arrive extended to
// 32 bits by the caller (`signext`/`zeroext` in its IR) and reads the whole
// register. The callees here are IR with those attributes, added to the same Jit.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "support/jit.h"
#include "support/types.h"

namespace memjit::codegen {
namespace {

using memjit::test::functionType;

// What clang -O2 makes of `int f(signed char x) { return x; }` and the like:
// the extension is the caller's, so each returns its argument's register.
constexpr const char* kClangCalleesIR = R"(
define i32 @memjit_test_widen_s8(i8 signext %x) {
  %r = sext i8 %x to i32
  ret i32 %r
}
define i32 @memjit_test_widen_u8(i8 zeroext %x) {
  %r = zext i8 %x to i32
  ret i32 %r
}
define i32 @memjit_test_widen_s16(i16 signext %x) {
  %r = sext i16 %x to i32
  ret i32 %r
}
define i32 @memjit_test_widen_u16(i16 zeroext %x) {
  %r = zext i16 %x to i32
  ret i32 %r
}
define i32 @memjit_test_widen_bool(i1 zeroext %x) {
  %r = zext i1 %x to i32
  ret i32 %r
}
)";

// f(x) = callee(cast(x to `narrow`)): x's upper bits stay in the register the cast leaves.
Module callerOf(const std::string& name, const char* callee, ElementType narrow) {
  Module m(name);
  FunctionBuilder b(m, "f", functionType("(i32) -> i32"));
  b.ret({b.callC(callee, ElementType::I32, {b.cast(b.arg(0), narrow)})});
  EXPECT_FALSE(b.finish());
  return m;
}

TEST(CallC, NarrowIntegerArgumentsArriveExtendedAsTheCAbiSays) {
  struct Case {
    const char* callee;
    ElementType narrow;
    std::int32_t in, want;
  };
  const Case cases[] = {
      {"memjit_test_widen_s8", ElementType::I8, 0x1ff, -1},
      {"memjit_test_widen_s8", ElementType::I8, 0x17f, 127},
      {"memjit_test_widen_s8", ElementType::SI8, -129, 127},
      {"memjit_test_widen_u8", ElementType::UI8, 0x1ff, 255},
      {"memjit_test_widen_u8", ElementType::UI8, -1, 255},
      {"memjit_test_widen_s16", ElementType::I16, 0x18000, -32768},
      {"memjit_test_widen_s16", ElementType::SI16, 0x7fff, 32767},
      {"memjit_test_widen_u16", ElementType::UI16, -1, 65535},
      {"memjit_test_widen_bool", ElementType::I1, 2, 0},
      {"memjit_test_widen_bool", ElementType::I1, 3, 1},
  };
  for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O1, jit::OptLevel::O2, jit::OptLevel::O3}) {
    jit::Jit engine = test::makeJit({.optLevel = level});
    auto callees = engine.addIR(kClangCalleesIR, "callees");
    ASSERT_TRUE(callees.ok()) << callees.error().str();
    int n = 0;
    for (const Case& c : cases) {
      auto mod = engine.add(callerOf("caller" + std::to_string(n++), c.callee, c.narrow), {.linkAgainst = {*callees}});
      ASSERT_TRUE(mod.ok()) << mod.error().str();
      const auto f = test::JitFunction<std::int32_t(std::int32_t)>(test::valueOrFail(mod->symbol("_mlir_ciface_f"), "f"));
      EXPECT_EQ(f(c.in), c.want) << c.callee << "(" << c.in << ") at " << jit::optLevelName(level);
    }
  }
}

}  // namespace
}  // namespace memjit::codegen
