// jit/deferred_entries.h, its internal half: the first tier's and the tier-up's halves of a
// deferred expanded entry, on IR shaped as the builder shapes it (an expanded
// function whose only use is the call in its C interface).
#include "jit/deferred_entries.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "support/parsed_ir.h"

namespace memjit::jit::detail {
namespace {

// `kernel` returns twice (it calls setjmp), which makes it not inlinable;
// `twice` is inlinable. Each is called only by its C interface.
constexpr const char* kEntriesIR = R"(
declare i32 @setjmp(ptr) returns_twice

define internal i64 @kernel(ptr %buf) {
  %r = call i32 @setjmp(ptr %buf)
  %w = sext i32 %r to i64
  ret i64 %w
}

define i64 @_mlir_ciface_kernel(ptr %buf) {
  %r = call i64 @kernel(ptr %buf)
  ret i64 %r
}

define internal i64 @twice(i64 %x) {
  %y = shl i64 %x, 1
  ret i64 %y
}

define i64 @_mlir_ciface_twice(i64 %x) {
  %r = call i64 @twice(i64 %x)
  ret i64 %r
}
)";

const std::vector<LaterInlining> kLater = {{"kernel", "_mlir_ciface_kernel"}, {"twice", "_mlir_ciface_twice"}};

bool callsByName(const llvm::Function& caller, const std::string& callee) {
  for (const llvm::BasicBlock& block : caller)
    for (const llvm::Instruction& inst : block)
      if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst))
        if (call->getCalledFunction() && call->getCalledFunction()->getName() == callee) return true;
  return false;
}

// `kernel` stayed, still called by its interface (setjmp did not move into
// it); `twice` moved into its interface and is gone.
void expectOnlyTheInlinableBodyMoved(const llvm::Module& module) {
  ASSERT_TRUE(test::verifies(module));
  ASSERT_NE(module.getFunction("kernel"), nullptr);
  EXPECT_TRUE(callsByName(*module.getFunction("_mlir_ciface_kernel"), "kernel"));
  EXPECT_FALSE(callsByName(*module.getFunction("_mlir_ciface_kernel"), "setjmp"));
  EXPECT_EQ(module.getFunction("twice"), nullptr);
  EXPECT_FALSE(callsByName(*module.getFunction("_mlir_ciface_twice"), "twice"));
}

// The deferral no longer asks on the adding thread whether a body can be
// inlined: each half asks before it moves or inlines one, and one that cannot
// be stays where it was, called by its interface.
TEST(DeferredEntryHalves, TheFirstTierMovesOnlyBodiesThatCanBeInlined) {
  test::ParsedIR ir = test::parseIR(kEntriesIR);
  spliceDeferredEntries(*ir, kLater);
  expectOnlyTheInlinableBodyMoved(*ir);
}

TEST(DeferredEntryHalves, TheTierUpInlinesOnlyBodiesThatCanBeInlined) {
  test::ParsedIR ir = test::parseIR(kEntriesIR);
  inlineDeferredEntries(*ir, kLater);
  expectOnlyTheInlinableBodyMoved(*ir);
}

}  // namespace
}  // namespace memjit::jit::detail
