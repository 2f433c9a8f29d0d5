// jit/large_functions.h: outlining the loops of large functions and keeping
// huge loops scalar, on bench/scaling_kernels.h's kernels with small
// thresholds; the outlined code computes what the original did.
#include "jit/large_functions.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "scaling_kernels.h"
#include "support/expected.h"
#include "support/jit.h"

using namespace memjit;
using memjit::bench::ScalingShape;

namespace {

codegen::Module kernel(ScalingShape shape, std::size_t ops) {
  codegen::Module module("large");
  Error e = bench::addScalingKernel(module, "kernel", shape, ops);
  EXPECT_FALSE(e) << e.str();
  return module;
}

std::size_t definedFunctions(const llvm::Module& module) {
  std::size_t n = 0;
  for (const llvm::Function& f : module) n += !f.isDeclaration();
  return n;
}

bool verifies(const llvm::Module& module) {
  std::string report;
  llvm::raw_string_ostream os(report);
  const bool broken = llvm::verifyModule(module, &os);
  EXPECT_FALSE(broken) << os.str();
  return !broken;
}

// `out` after running `module`'s kernel, compiled without IR passes (so the
// code is what the outlining left), on fixed inputs.
std::vector<float> run(codegen::Module module, ScalingShape shape) {
  jit::Jit jit = test::makeJit({.optLevel = jit::OptLevel::O0});
  jit::LoadedModule loaded = test::valueOrFail(jit.add(std::move(module), {.runIRPasses = false}), "add");
  jit::Function fn = test::valueOrFail(loaded.function("kernel"), "kernel");
  std::vector<float> in(bench::scalingInputSize(shape), 0.75f), out(bench::scalingOutputSize(shape), 1.5f);
  auto inView = runtime::makeView(in), outView = runtime::makeView(out);
  using Fn = void(runtime::StridedMemRef<float, 1>*, runtime::StridedMemRef<float, 1>*);
  fn.cInterfaceAs<Fn>()(&inView, &outView);
  return out;
}

}  // namespace

TEST(OutlineLoops, EachLoopOfALargeFunctionBecomesANoinlineFunction) {
  codegen::Module module = kernel(ScalingShape::Loops, 60);  // 10 loops
  llvm::Module& ir = module.llvm();
  const std::size_t before = definedFunctions(ir);
  EXPECT_EQ(jit::detail::outlineLoopsOfLargeFunctions(ir, 50), 10u);
  ASSERT_TRUE(verifies(ir));
  EXPECT_EQ(definedFunctions(ir), before + 10);
  std::size_t calls = 0;
  for (llvm::BasicBlock& block : *ir.getFunction("kernel"))
    for (llvm::Instruction& inst : block)
      if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst)) {
        llvm::Function* callee = call->getCalledFunction();
        ASSERT_NE(callee, nullptr);
        EXPECT_TRUE(callee->hasInternalLinkage()) << callee->getName().str();
        EXPECT_TRUE(callee->hasFnAttribute(llvm::Attribute::NoInline)) << callee->getName().str();
        ++calls;
      }
  EXPECT_EQ(calls, 10u);
}

TEST(OutlineLoops, SmallFunctionsAndSingleLoopsStayWhole) {
  codegen::Module loops = kernel(ScalingShape::Loops, 60);
  const std::size_t before = definedFunctions(loops.llvm());
  EXPECT_EQ(jit::detail::outlineLoopsOfLargeFunctions(loops.llvm()), 0u);  // below the default threshold
  EXPECT_EQ(definedFunctions(loops.llvm()), before);
  codegen::Module body = kernel(ScalingShape::Body, 200);
  EXPECT_EQ(jit::detail::outlineLoopsOfLargeFunctions(body.llvm(), 50), 0u);  // one top-level loop
  codegen::Module nest = kernel(ScalingShape::Nest, 400);
  EXPECT_EQ(jit::detail::outlineLoopsOfLargeFunctions(nest.llvm(), 50), 0u);  // one nest
}

TEST(OutlineLoops, OutlinedCodeComputesTheSameBits) {
  const std::vector<float> whole = run(kernel(ScalingShape::Loops, 120), ScalingShape::Loops);
  codegen::Module split = kernel(ScalingShape::Loops, 120);
  ASSERT_EQ(jit::detail::outlineLoopsOfLargeFunctions(split.llvm(), 50), 20u);
  const std::vector<float> outlined = run(std::move(split), ScalingShape::Loops);
  ASSERT_EQ(whole.size(), outlined.size());
  EXPECT_EQ(std::memcmp(whole.data(), outlined.data(), whole.size() * sizeof(float)), 0);
  EXPECT_NE(whole[0], 1.5f);
}

TEST(KeepHugeLoopsScalar, MarksOnlyInnermostLoopsAboveTheThreshold) {
  codegen::Module body = kernel(ScalingShape::Body, 400);
  EXPECT_EQ(jit::detail::keepHugeLoopsScalar(body.llvm(), 100), 1u);
  ASSERT_TRUE(verifies(body.llvm()));
  std::string text;
  llvm::raw_string_ostream os(text);
  body.llvm().print(os, nullptr);
  EXPECT_NE(os.str().find("!\"llvm.loop.vectorize.enable\", i32 0"), std::string::npos);

  codegen::Module small = kernel(ScalingShape::Body, 400);
  EXPECT_EQ(jit::detail::keepHugeLoopsScalar(small.llvm(), 1000), 0u);
  // The nest's innermost loop holds an eighth of the operations.
  codegen::Module nest = kernel(ScalingShape::Nest, 800);
  EXPECT_EQ(jit::detail::keepHugeLoopsScalar(nest.llvm(), 50), 1u);
  codegen::Module nestSmall = kernel(ScalingShape::Nest, 800);
  EXPECT_EQ(jit::detail::keepHugeLoopsScalar(nestSmall.llvm(), 400), 0u);
}
