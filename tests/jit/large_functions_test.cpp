// jit/large_functions.h: outlining the loops of large functions and keeping
// huge loops scalar, on bench/scaling_kernels.h's kernels with small
// thresholds; the outlined code computes what the original did.
#include "jit/large_functions.h"
#include "jit/codegen_pass_gate.h"

#include "jit/code_emitter.h"
#include "jit/compile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/GVN.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>

#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "scaling_kernels.h"
#include "support/expected.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

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

using test::verifies;

// `out` after running `module`'s kernel on fixed inputs, compiled by default
// at O0 without IR passes (so the code is what the outlining left).
std::vector<float> run(codegen::Module module, ScalingShape shape, jit::OptLevel level = jit::OptLevel::O0,
                       bool runIRPasses = false) {
  jit::Jit jit = test::makeJit({.optLevel = level});
  jit::LoadedModule loaded = test::valueOrFail(jit.add(std::move(module), {.runIRPasses = runIRPasses}), "add");
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
  EXPECT_EQ(jit::detail::outlineLoopsOfLargeFunctions(ir, 50, 0), 10u);
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
  ASSERT_EQ(jit::detail::outlineLoopsOfLargeFunctions(split.llvm(), 50, 0), 20u);
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

namespace {

// A kernel whose loops talk to each other in every way outlining must keep:
// a loop-carried reduction whose result later loops use, a value computed in
// the caller between loops, a heap buffer one loop writes and the next reads
// back in reverse (a dependence through memory between loops), and the final
// reduction stored at out[n]. `groups` three-loop
// groups; (memref<?xf32> in[n], memref<?xf32> out[n+1]) -> ().
codegen::Module dependentLoops(std::size_t groups) {
  using codegen::Value;
  codegen::Module module("dependent");
  codegen::FunctionBuilder b(module, "kernel", *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"));
  Value in = b.arg(0), out = b.arg(1), zero = b.index(0), one = b.index(1);
  Value n = b.dim(in, 0);
  Value last = n - one;
  Value tmp = b.alloc(MemRefType(ElementType::F32, {kDynamic}), {n});
  Value carry = b.f32(0.25f);
  for (std::size_t g = 0; g < groups; ++g) {
    carry = b.forLoop(zero, n, one, {carry}, [&](Value i, const std::vector<Value>& acc) {
      return std::vector<Value>{acc[0] * 0.5f + b.load(in, {i})};
    })[0];
    Value bias = carry - 1.0f;  // defined in the caller, used by the next two loops
    const float c = 0.75f + static_cast<float>(g % 3) * 0.125f;
    b.forLoop(zero, n, one, [&](Value i) { b.store(b.load(in, {i}) * c + bias, tmp, {i}); });
    b.forLoop(zero, n, one, [&](Value i) {
      b.store(b.load(out, {i}) * 0.5f + b.load(tmp, {last - i}) * bias, out, {i});
    });
  }
  b.store(carry, out, {n});
  b.dealloc(tmp);
  b.ret();
  Error e = b.finish();
  EXPECT_FALSE(e) << e.str();
  return module;
}

// Edge values among ordinary ones: -0, a denormal, a value past 2^53's float
// neighbourhood, the largest float, NaN and infinity.
std::vector<float> edgeInputs() {
  std::vector<float> in = {-0.0f, 1e-40f, 1.5f, -2.25f, 9.007199e15f, 0.125f, -7.0f, 3.0f};
  for (int i = 0; i < 24; ++i) in.push_back(static_cast<float>(i % 7) * 0.375f - 1.0f);
  return in;
}

std::vector<float> runDependent(codegen::Module module, std::vector<float> in, jit::OptLevel level,
                                bool runIRPasses) {
  jit::Jit jit = test::makeJit({.optLevel = level});
  jit::LoadedModule loaded = test::valueOrFail(jit.add(std::move(module), {.runIRPasses = runIRPasses}), "add");
  jit::Function fn = test::valueOrFail(loaded.function("kernel"), "kernel");
  std::vector<float> out(in.size() + 1);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(i % 5) * 0.25f;
  auto inView = runtime::makeView(in), outView = runtime::makeView(out);
  using Fn = void(runtime::StridedMemRef<float, 1>*, runtime::StridedMemRef<float, 1>*);
  fn.cInterfaceAs<Fn>()(&inView, &outView);
  return out;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  // memcmp's pointers must not be null, not even for 0 bytes (UBSan), and an empty vector's data() may be.
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

TEST(OutlineLoops, DependentLoopsComputeTheSameBitsOutlined) {
  for (std::vector<float> in : {edgeInputs(), std::vector<float>{}, std::vector<float>{std::nanf("")},
                                std::vector<float>{3.4028235e38f, -3.4028235e38f, 1.0f}}) {
    const std::vector<float> whole = runDependent(dependentLoops(6), in, jit::OptLevel::O0, false);
    codegen::Module split = dependentLoops(6);
    ASSERT_EQ(jit::detail::outlineLoopsOfLargeFunctions(split.llvm(), 50, 0), 18u);
    ASSERT_TRUE(verifies(split.llvm()));
    EXPECT_TRUE(sameBits(whole, runDependent(std::move(split), in, jit::OptLevel::O0, false)));
  }
}

TEST(OutlineLoops, CallerValuesReachOutlinedLoopsThroughTheStack) {
  // Every outside value a loop uses is loaded (volatile) just before the call,
  // so nothing the caller defines lives in a register across a call.
  codegen::Module split = dependentLoops(4);
  ASSERT_EQ(jit::detail::outlineLoopsOfLargeFunctions(split.llvm(), 50, 0), 12u);
  std::size_t volatileLoads = 0;
  for (llvm::BasicBlock& block : *split.llvm().getFunction("kernel"))
    for (llvm::Instruction& inst : block)
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst)) volatileLoads += load->isVolatile();
  EXPECT_GE(volatileLoads, 12u);
}

TEST(OutlineLoops, DependentLoopsGiveTheBitsOfO0AtO2) {
  // Above the default threshold, through the whole O2 pipeline.
  codegen::Module probe = dependentLoops(120);
  std::size_t instructions = probe.llvm().getFunction("kernel")->getInstructionCount();
  ASSERT_GT(instructions, jit::detail::kOutlineLoopsAbove);
  const std::vector<float> o0 = runDependent(dependentLoops(120), edgeInputs(), jit::OptLevel::O0, true);
  const std::vector<float> o2 = runDependent(dependentLoops(120), edgeInputs(), jit::OptLevel::O2, true);
  EXPECT_TRUE(sameBits(o0, o2));
  std::size_t changed = 0;
  for (std::size_t i = 0; i < o0.size(); ++i) changed += !sameBits({o0[i]}, {static_cast<float>(i % 5) * 0.25f});
  EXPECT_GT(changed, o0.size() / 2);
}

namespace {

// Outlined functions of `module` and the IR instructions of the largest.
std::pair<std::size_t, std::size_t> outlinedFunctions(const llvm::Module& module) {
  std::size_t count = 0, largest = 0;
  for (const llvm::Function& f : module)
    if (!f.isDeclaration() && f.hasInternalLinkage() && f.getName().starts_with("kernel.loop")) {
      ++count;
      largest = std::max(largest, static_cast<std::size_t>(f.getInstructionCount()));
    }
  return {count, largest};
}

// Loops in every arrangement grouping meets, `groups` times over: a
// reduction whose result later code uses; a loop under ifThen on it; loops in
// both branches of an ifElse whose results merge; a two-deep nest; a
// parallel loop (a call to the runtime, its body outlined by the builder);
// a loop with a conditional store in its body; and a final value stored at
// out[n]. (memref<?xf32> in[n], memref<?xf32> out[n+1]) -> ().
codegen::Module mixedLoops(std::size_t groups) {
  using codegen::Value;
  codegen::Module module("mixed");
  codegen::FunctionBuilder b(module, "kernel", *parseFunctionType("(memref<?xf32>, memref<?xf32>) -> ()"));
  Value in = b.arg(0), out = b.arg(1), zero = b.index(0), one = b.index(1);
  Value n = b.dim(in, 0);
  Value carry = b.f32(0.5f);
  for (std::size_t g = 0; g < groups; ++g) {
    const float c = 0.625f + static_cast<float>(g % 4) * 0.125f;
    carry = b.forLoop(zero, n, one, {carry}, [&](Value i, const std::vector<Value>& acc) {
      return std::vector<Value>{acc[0] * 0.5f + b.load(in, {i})};
    })[0];
    b.ifThen(carry > b.f32(0.0f), [&] {
      b.forLoop(zero, n, one, [&](Value i) { b.store(b.load(out, {i}) * c + carry, out, {i}); });
    });
    carry = b.ifElse(
        carry < b.f32(1.0f),
        [&] {
          return b.forLoop(zero, n, one, {carry}, [&](Value i, const std::vector<Value>& acc) {
            return std::vector<Value>{acc[0] - b.load(out, {i}) * 0.25f};
          });
        },
        [&] {
          b.forLoop(zero, n, one, [&](Value i) { b.store(b.load(in, {i}) - carry, out, {i}); });
          return std::vector<Value>{carry * 0.75f};
        })[0];
    b.forLoop(zero, n, one, [&](Value i) {
      b.forLoop(zero, b.index(2), one, [&](Value j) {
        b.store(b.load(out, {i}) * 0.5f + b.load(in, {i}) * b.cast(j, ElementType::F32), out, {i});
      });
    });
    b.parallelFor(zero, n, one, {}, [&](Value i) { b.store(b.load(out, {i}) + c, out, {i}); });
    b.forLoop(zero, n, one, [&](Value i) {
      Value x = b.load(out, {i});
      b.ifThen(x > carry, [&] { b.store(x - carry * c, out, {i}); });
    });
  }
  b.store(carry, out, {n});
  b.ret();
  Error e = b.finish();
  EXPECT_FALSE(e) << e.str();
  return module;
}

}  // namespace

TEST(OutlineLoops, ConsecutiveLoopsShareAFunctionUpToTheLimit) {
  codegen::Module module = kernel(ScalingShape::Loops, 600);  // 100 loops in a row
  codegen::Module single = kernel(ScalingShape::Loops, 600);
  ASSERT_EQ(jit::detail::outlineLoopsOfLargeFunctions(single.llvm(), 50, 0), 100u);
  const std::size_t loopSize = outlinedFunctions(single.llvm()).second;  // one loop, entry and return
  const std::size_t functions = jit::detail::outlineLoopsOfLargeFunctions(module.llvm(), 50, 300);
  ASSERT_TRUE(verifies(module.llvm()));
  const auto [count, largest] = outlinedFunctions(module.llvm());
  EXPECT_EQ(count, functions);
  // Groups fill up: each holds more than half the limit's worth of loops, except the last.
  EXPECT_LE(functions, 100 / (150 / loopSize) + 1);
  EXPECT_GE(functions, 100 / (300 / (loopSize - 2)));
  EXPECT_LE(largest, 300u + 10);  // the limit counts the loops; extraction adds an entry, a return and stubs
  // Every loop of the outlined functions stays one vector loop without a run-time-unrolled remainder.
  std::string text;
  llvm::raw_string_ostream os(text);
  module.llvm().print(os, nullptr);
  EXPECT_NE(os.str().find("!\"llvm.loop.unroll.runtime.disable\""), std::string::npos);
  EXPECT_NE(os.str().find("!\"llvm.loop.interleave.count\", i32 1}"), std::string::npos);
  EXPECT_TRUE(sameBits(run(kernel(ScalingShape::Loops, 600), ScalingShape::Loops),
                       run(std::move(module), ScalingShape::Loops)));
}

TEST(OutlineLoops, BranchingLoopsAreGroupedWhereControlFlowAllows) {
  codegen::Module alone = mixedLoops(4);
  const std::size_t loops = jit::detail::outlineLoopsOfLargeFunctions(alone.llvm(), 50, 0);
  codegen::Module grouped = mixedLoops(4);
  const std::size_t functions = jit::detail::outlineLoopsOfLargeFunctions(grouped.llvm(), 50, 1u << 20);
  ASSERT_TRUE(verifies(grouped.llvm()));
  // Every loop is outlined, in fewer functions.
  for (codegen::Module* module : {&alone, &grouped}) {
    llvm::DominatorTree dominators(*module->llvm().getFunction("kernel"));
    EXPECT_TRUE(llvm::LoopInfo(dominators).empty());
  }
  // Per group: the reduction, the loop under ifThen, one per ifElse branch, the nest and the conditional loop
  // (the parallel loop is a call). A new function starts at a loop two paths reach (after an ifThen or ifElse),
  // at the else branch's loop, and after the parallel loop's context (CodeExtractor moves no alloca).
  EXPECT_EQ(loops, 4u * 6);
  EXPECT_EQ(functions, 17u);
}

TEST(OutlineLoops, GroupsOfDependentAndBranchingLoopsComputeTheSameBits) {
  for (std::size_t groupUpTo : {std::size_t{0}, std::size_t{40}, std::size_t{300}, std::size_t{1} << 20})
    for (std::vector<float> in : {edgeInputs(), std::vector<float>{}, std::vector<float>{std::nanf("")},
                                  std::vector<float>{3.4028235e38f, -3.4028235e38f, 1.0f}}) {
      SCOPED_TRACE("groupUpTo " + std::to_string(groupUpTo) + ", " + std::to_string(in.size()) + " inputs");
      const std::vector<float> dependent = runDependent(dependentLoops(6), in, jit::OptLevel::O0, false);
      codegen::Module splitDependent = dependentLoops(6);
      EXPECT_GT(jit::detail::outlineLoopsOfLargeFunctions(splitDependent.llvm(), 50, groupUpTo), 0u);
      ASSERT_TRUE(verifies(splitDependent.llvm()));
      EXPECT_TRUE(sameBits(dependent, runDependent(std::move(splitDependent), in, jit::OptLevel::O0, false)));

      const std::vector<float> mixed = runDependent(mixedLoops(4), in, jit::OptLevel::O0, false);
      codegen::Module splitMixed = mixedLoops(4);
      EXPECT_GT(jit::detail::outlineLoopsOfLargeFunctions(splitMixed.llvm(), 50, groupUpTo), 0u);
      ASSERT_TRUE(verifies(splitMixed.llvm()));
      EXPECT_TRUE(sameBits(mixed, runDependent(std::move(splitMixed), in, jit::OptLevel::O0, false)));
    }
}

TEST(OutlineLoops, BranchingLoopsGiveTheBitsOfO0AtO2) {
  codegen::Module probe = mixedLoops(40);
  ASSERT_GT(probe.llvm().getFunction("kernel")->getInstructionCount(), jit::detail::kOutlineLoopsAbove);
  for (std::vector<float> in : {edgeInputs(), std::vector<float>{std::nanf("")}}) {
    const std::vector<float> o0 = runDependent(mixedLoops(40), in, jit::OptLevel::O0, true);
    const std::vector<float> o2 = runDependent(mixedLoops(40), in, jit::OptLevel::O2, true);
    EXPECT_TRUE(sameBits(o0, o2));
  }
}

TEST(BoundSchedulingRegions, SplitsOnlyLongBlocksAndKeepsTheBits) {
  codegen::Module body = kernel(ScalingShape::Body, 3000);
  llvm::Function* fn = body.llvm().getFunction("kernel");
  std::size_t longest = 0;
  for (const llvm::BasicBlock& block : *fn) longest = std::max(longest, block.size());
  ASSERT_GT(longest, 1000u);
  EXPECT_EQ(jit::detail::boundSchedulingRegions(body.llvm(), 1000), (longest - 1) / 1000);
  ASSERT_TRUE(verifies(body.llvm()));
  codegen::Module small = kernel(ScalingShape::Body, 3000);
  EXPECT_EQ(jit::detail::boundSchedulingRegions(small.llvm(), longest), 0u);
  codegen::Module nest = kernel(ScalingShape::Nest, 800);
  EXPECT_EQ(jit::detail::boundSchedulingRegions(nest.llvm()), 0u);  // below the default limit
  // The stackmaps survive code generation (O2's machine scheduler sees them)
  // and change nothing computed.
  const std::vector<float> plain = run(kernel(ScalingShape::Body, 3000), ScalingShape::Body);
  codegen::Module bounded = kernel(ScalingShape::Body, 3000);
  ASSERT_GT(jit::detail::boundSchedulingRegions(bounded.llvm(), 500), 0u);
  EXPECT_TRUE(sameBits(plain, run(std::move(bounded), ScalingShape::Body, jit::OptLevel::O2)));
}

namespace {

// Runs O2's IR passes on `module` as the Jit does; returns the machine they targeted.
std::unique_ptr<llvm::TargetMachine> optimizeAtO2(codegen::Module& module) {
  auto machine = test::valueOrFail(jit::detail::createTargetMachine(jit::TargetSpec::host(), jit::OptLevel::O2),
                                   "target machine");
  jit::detail::prepareModule(module.llvm(), *machine);
  jit::detail::optimize(module.llvm(), *machine, {.level = jit::OptLevel::O2});
  return machine;
}

// Per outlined function: its IR instructions and vector multiplies.
std::pair<std::size_t, std::size_t> optimizedOutlinedCode(codegen::Module& module) {
  auto machine = optimizeAtO2(module);
  std::size_t instructions = 0, vectorMultiplies = 0;
  for (const llvm::Function& f : module.llvm()) {
    if (!f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) continue;
    instructions += f.getInstructionCount();
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block)
        vectorMultiplies += inst.getOpcode() == llvm::Instruction::FMul && inst.getType()->isVectorTy();
  }
  return {instructions, vectorMultiplies};
}

}  // namespace

// The passes skipped in outlined functions are ones these loops do not need:
// each of the 400 loops keeps exactly one vector loop (one vector multiply).
TEST(TrimPipelineForOutlinedLoops, OutlinedLoopsStayVectorised) {
  codegen::Module module = kernel(ScalingShape::Loops, 2400);
  const auto [instructions, vectorMultiplies] = optimizedOutlinedCode(module);
  EXPECT_GT(instructions, 0u);
  EXPECT_EQ(vectorMultiplies, 400u);
}

namespace {

// The loops kernel of `ops` operations with its loops outlined in groups, and
// the pass instrumentation optimize() trims the pipeline with.
struct TrimmedLoops {
  explicit TrimmedLoops(std::size_t ops) : module(kernel(ScalingShape::Loops, ops)) {
    EXPECT_GT(jit::detail::outlineLoopsOfLargeFunctions(module.llvm(), 50, 300), 1u);
    jit::detail::trimPipelineForOutlinedLoops(callbacks);
  }
  template <typename Pass>
  bool runs(const Pass& pass, const llvm::Function& f) {
    return instrumentation.runBeforePass<llvm::Function>(pass, f);
  }
  std::vector<const llvm::Function*> outlined() const {
    std::vector<const llvm::Function*> found;
    for (const llvm::Function& f : module.llvm())
      if (f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) found.push_back(&f);
    return found;
  }

  codegen::Module module;
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::PassInstrumentation instrumentation{&callbacks};
};

}  // namespace

TEST(TrimPipelineForOutlinedLoops, SkipsListedPassesOnlyInOutlinedFunctions) {
  TrimmedLoops loops(600);
  const llvm::Function* kernelFunction = loops.module.llvm().getFunction("kernel");
  ASSERT_NE(kernelFunction, nullptr);
  EXPECT_TRUE(loops.runs(llvm::GVNPass(), *kernelFunction));
  const auto outlined = loops.outlined();
  for (const llvm::Function* f : outlined) {
    EXPECT_FALSE(loops.runs(llvm::GVNPass(), *f));
    EXPECT_TRUE(loops.runs(llvm::LoopVectorizePass(), *f));
    EXPECT_TRUE(loops.runs(llvm::InstCombinePass(), *f));
  }
  EXPECT_GT(outlined.size(), 1u);
}

// InstCombine and SimplifyCFG run once before the vectoriser and once after
// it in each outlined function, every time elsewhere; the count is per function.
TEST(TrimPipelineForOutlinedLoops, RunsInstCombineAndSimplifyCfgOnceBeforeAndOnceAfterTheVectoriser) {
  TrimmedLoops loops(600);
  const auto outlined = loops.outlined();
  ASSERT_GE(outlined.size(), 2u);
  const llvm::Function& kernelFunction = *loops.module.llvm().getFunction("kernel");
  const llvm::Function &first = *outlined[0], &second = *outlined[1];
  const llvm::InstCombinePass instCombine;
  const llvm::SimplifyCFGPass simplifyCfg;
  EXPECT_TRUE(loops.runs(instCombine, first));
  EXPECT_FALSE(loops.runs(instCombine, first));
  EXPECT_TRUE(loops.runs(simplifyCfg, first));
  EXPECT_FALSE(loops.runs(simplifyCfg, first));
  EXPECT_TRUE(loops.runs(instCombine, second));  // its own count
  EXPECT_TRUE(loops.runs(llvm::LoopVectorizePass(), first));
  EXPECT_TRUE(loops.runs(instCombine, first));
  EXPECT_TRUE(loops.runs(simplifyCfg, first));
  EXPECT_FALSE(loops.runs(instCombine, first));
  EXPECT_FALSE(loops.runs(simplifyCfg, first));
  EXPECT_FALSE(loops.runs(instCombine, second));  // still before its vectoriser
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(loops.runs(instCombine, kernelFunction));
    EXPECT_TRUE(loops.runs(simplifyCfg, kernelFunction));
  }
}

namespace {

llvm::Function* addFunction(llvm::Module& module, const char* name, bool outlined) {
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()), false);
  auto* f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module);
  llvm::ReturnInst::Create(module.getContext(), llvm::BasicBlock::Create(module.getContext(), "entry", f));
  if (outlined) f->addFnAttr(jit::detail::kOutlinedLoopsAttribute);
  return f;
}

std::size_t loopsIn(llvm::Function& f) {
  llvm::DominatorTree dominators(f);
  llvm::LoopInfo loops(dominators);
  return loops.getLoopsInPreorder().size();
}

}  // namespace

// The code generator's order: a function's loop passes, then its function
// passes, function after function in module order (declarations skipped). The
// module names no target, so b (not outlined) keeps LSR.
TEST(CodegenPassGate, SkipsLsrAndDomainReassignmentOnlyInOutlinedFunctions) {
  llvm::LLVMContext context;
  llvm::Module module("gate", context);
  addFunction(module, "a", true);
  llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
                         llvm::Function::ExternalLinkage, "declared", module);
  addFunction(module, "b", false);
  addFunction(module, "c", true);
  jit::detail::CodegenPassGate gate(module);
  llvm::OptPassGate& installed = context.getOptPassGate();
  ASSERT_EQ(&installed, &gate);
  const char* lsr = "Loop Strength Reduction";
  const char* domains = "X86 Domain Reassignment Pass";
  EXPECT_FALSE(installed.shouldRunPass(lsr, "loop"));  // a's
  EXPECT_TRUE(installed.shouldRunPass("Canonicalize Freeze Instructions in Loops", "loop"));
  EXPECT_FALSE(installed.shouldRunPass(domains, "function (a)"));
  EXPECT_TRUE(installed.shouldRunPass("X86 DAG->DAG Instruction Selection", "function (a)"));  // with FastISel
  EXPECT_TRUE(installed.shouldRunPass(lsr, "loop"));  // b's
  EXPECT_TRUE(installed.shouldRunPass(domains, "function (b)"));
  EXPECT_TRUE(installed.shouldRunPass("X86 DAG->DAG Instruction Selection", "function (b)"));
  EXPECT_FALSE(installed.shouldRunPass(lsr, "loop"));  // c's
  EXPECT_FALSE(installed.shouldRunPass(domains, "function (c)"));
  EXPECT_TRUE(installed.shouldRunPass(lsr, "module"));
  EXPECT_EQ(gate.skippedLoopPasses(), 2u);
  EXPECT_EQ(gate.functionsSkippedIn(), 2u);
}

TEST(CodegenPassGate, RestoresTheGateItReplaced) {
  llvm::LLVMContext context;
  llvm::Module module("plain", context);
  addFunction(module, "a", false);
  llvm::OptPassGate& before = context.getOptPassGate();
  {
    jit::detail::CodegenPassGate gate(module);
    EXPECT_NE(&context.getOptPassGate(), &before);
  }
  EXPECT_EQ(&context.getOptPassGate(), &before);
}

// A loop walking a column of a matrix whose row length is a run-time value:
// the one kind of loop LoopStrengthReduce keeps working on.
Error addColumnCopy(codegen::Module& module) {
  using codegen::Value;
  codegen::FunctionBuilder b(module, "columns", *parseFunctionType("(memref<?x?xf32>, memref<?xf32>) -> ()"));
  Value in = b.arg(0), out = b.arg(1), zero = b.index(0), one = b.index(1);
  b.forLoop(zero, b.dim(in, 1), one, [&](Value j) {
    b.forLoop(zero, b.dim(in, 0), one, [&](Value i) { b.store(b.load(in, {i, j}) * 2.0f, out, {i}); });
  });
  b.ret();
  return b.finish();
}

// Against LLVM's real code generator: the gate installed here is asked first
// by the one code generation installs, so it sees every pass. It skips LSR
// once per loop of the outlined functions and of the nest placed among them
// (each of its loops addresses by a scaled index), and domain reassignment
// in each outlined function; the loops of the column copy after them keep LSR.
TEST(CodegenPassGate, FollowsTheCodeGeneratorsOrder) {
  codegen::Module module = kernel(ScalingShape::Loops, 120);
  ASSERT_FALSE(bench::addScalingKernel(module, "nest", ScalingShape::Nest, 400));
  ASSERT_FALSE(addColumnCopy(module));
  ASSERT_GT(jit::detail::outlineLoopsOfLargeFunctions(module.llvm(), 50, 60), 1u);
  auto machine = test::valueOrFail(jit::detail::createTargetMachine(jit::TargetSpec::host(), jit::OptLevel::O2),
                                   "target machine");
  jit::detail::prepareModule(module.llvm(), *machine);
  jit::detail::optimize(module.llvm(), *machine, {.level = jit::OptLevel::O2});
  std::size_t outlinedFunctions = 0, outlinedLoops = 0, nestLoops = 0, columnLoops = 0;
  for (llvm::Function& f : module.llvm()) {
    if (f.isDeclaration()) continue;
    const bool outlined = f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute);
    outlinedFunctions += outlined;
    if (outlined) outlinedLoops += loopsIn(f);
    if (f.getName().contains("nest")) nestLoops += loopsIn(f);
    if (f.getName().contains("columns")) columnLoops += loopsIn(f);
  }
  ASSERT_GT(outlinedLoops, outlinedFunctions);
  ASSERT_GE(nestLoops, 8u);
  ASSERT_GE(columnLoops, 2u);
  jit::detail::CodegenPassGate gate(module.llvm());
  test::valueOrFail(jit::detail::emitCode(module.llvm(), *machine, jit::detail::EmitKind::Object), "object");
  EXPECT_EQ(gate.skippedLoopPasses(), outlinedLoops + nestLoops);
  EXPECT_EQ(gate.functionsWithoutStrengthReduction(), outlinedFunctions + 1);
  EXPECT_EQ(gate.functionsSkippedIn(), outlinedFunctions);
  EXPECT_EQ(gate.functionsFastSelected(), outlinedFunctions);
}

// With the gate, the outlined loops give O0's bits at O2.
TEST(CodegenPassGate, OutlinedLoopsGiveTheBitsOfO0AtO2) {
  const std::vector<float> o0 = run(kernel(ScalingShape::Loops, 3000), ScalingShape::Loops);
  const std::vector<float> o2 = run(kernel(ScalingShape::Loops, 3000), ScalingShape::Loops, jit::OptLevel::O2, true);
  EXPECT_TRUE(sameBits(o0, o2));
  EXPECT_NE(o0[0], 1.5f);
}

namespace {

// The loops kernel compiled at `level` (with the IR passes), run on `in` and
// a copy of `out` made from it, both viewed with `stride`: `out` after.
std::vector<float> runLoops(const jit::Function& fn, const std::vector<float>& in, std::int64_t stride) {
  const std::int64_t n = static_cast<std::int64_t>(in.size()) / stride;
  std::vector<float> inCopy = in, out(in.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = in[(i * 5 + 3) % in.size()] * -0.5f;
  auto inView = runtime::makeView<float, 1>(inCopy.data(), {n}, {stride});
  auto outView = runtime::makeView<float, 1>(out.data(), {n}, {stride});
  using Fn = void(runtime::StridedMemRef<float, 1>*, runtime::StridedMemRef<float, 1>*);
  fn.cInterfaceAs<Fn>()(&inView, &outView);
  return out;
}

// Edge values, `count` of them (cycled): signed zeros, denormals, infinities,
// NaN, the largest floats and integers past 2^24 and 2^53.
std::vector<float> edgeValues(std::size_t count) {
  const float pattern[] = {-0.0f, 0.0f, 1e-40f, -1e-45f, 1.17549435e-38f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::nanf(""), 3.4028235e38f, -3.4028235e38f,
                           16777217.0f, 9.007199e15f, 1.5f, -2.25f, 0.1f, -7.0f, 3.0f};
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = pattern[i % std::size(pattern)];
  return values;
}

}  // namespace

// FastISel selects the outlined loops' instructions at O2: the same bits as
// O0 for edge values, any length (none, shorter than a vector, a vector and a
// remainder) and strided views (the vectoriser versions on the stride).
TEST(CodegenPassGate, FastSelectedLoopsGiveTheBitsOfO0OnEdgeValues) {
  jit::Jit o0Jit = test::makeJit({.optLevel = jit::OptLevel::O0});
  jit::Jit o2Jit = test::makeJit({.optLevel = jit::OptLevel::O2});
  jit::LoadedModule o0Module = test::valueOrFail(o0Jit.add(kernel(ScalingShape::Loops, 3000)), "O0");
  jit::LoadedModule o2Module = test::valueOrFail(o2Jit.add(kernel(ScalingShape::Loops, 3000)), "O2");
  const jit::Function o0 = test::valueOrFail(o0Module.function("kernel"), "kernel");
  const jit::Function o2 = test::valueOrFail(o2Module.function("kernel"), "kernel");
  for (std::size_t count : {0u, 1u, 15u, 16u, 37u, 133u})
    for (std::int64_t stride : {1, 3}) {
      const std::vector<float> in = edgeValues(count * static_cast<std::size_t>(stride));
      EXPECT_TRUE(sameBits(runLoops(o0, in, stride), runLoops(o2, in, stride)))
          << count << " values, stride " << stride;
    }
}

// The vector loops survive FastISel: each of the 400 outlined loops keeps
// its vector multiply in the assembly.
TEST(CodegenPassGate, FastSelectedLoopsStayVectorised) {
  codegen::Module module = kernel(ScalingShape::Loops, 2400);
  auto machine = optimizeAtO2(module);
  std::size_t outlined = 0;
  for (const llvm::Function& f : module.llvm()) outlined += f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute);
  ASSERT_GT(outlined, 1u);
  jit::detail::CodegenPassGate gate(module.llvm());
  const std::string assembly =
      test::valueOrFail(jit::detail::emitCode(module.llvm(), *machine, jit::detail::EmitKind::Assembly), "assembly");
  EXPECT_EQ(gate.functionsFastSelected(), outlined);
  std::size_t vectorMultiplies = 0;
  for (std::size_t at = assembly.find("vmulps"); at != std::string::npos; at = assembly.find("vmulps", at + 1))
    ++vectorMultiplies;
  EXPECT_GE(vectorMultiplies, 400u);
}

// The gate switches the machine's FastISel on for the outlined functions'
// instruction selection only, and back when it goes; functions with fast-math
// flags (SelectionDAG may contract them into FMA) and modules with half values
// keep SelectionDAG.
TEST(CodegenPassGate, SwitchesFastIselOnlyWhereItGivesTheSameBits) {
  const char* isel = "X86 DAG->DAG Instruction Selection";
  auto machine = test::valueOrFail(jit::detail::createTargetMachine(jit::TargetSpec::host(), jit::OptLevel::O2),
                                   "target machine");
  machine->setFastISel(false);
  llvm::LLVMContext context;
  llvm::Module module("flags", context);
  addFunction(module, "caller", false);
  auto* type = llvm::FunctionType::get(llvm::Type::getFloatTy(context), {llvm::Type::getFloatTy(context)}, false);
  for (const char* name : {"exact", "contracted"}) {
    llvm::Function* f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module);
    f->addFnAttr(jit::detail::kOutlinedLoopsAttribute);
    auto* entry = llvm::BasicBlock::Create(context, "entry", f);
    auto* product = llvm::BinaryOperator::CreateFMul(f->getArg(0), f->getArg(0), "p", entry);
    auto* sum = llvm::BinaryOperator::CreateFAdd(product, f->getArg(0), "s", entry);
    if (f->getName() == "contracted") {
      product->setHasAllowContract(true);
      sum->setHasAllowContract(true);
    }
    llvm::ReturnInst::Create(context, sum, entry);
  }
  {
    jit::detail::CodegenPassGate gate(module, machine.get());
    llvm::OptPassGate& installed = context.getOptPassGate();
    EXPECT_TRUE(installed.shouldRunPass(isel, "function (caller)"));
    EXPECT_FALSE(machine->Options.EnableFastISel);
    EXPECT_TRUE(installed.shouldRunPass(isel, "function (exact)"));
    EXPECT_TRUE(machine->Options.EnableFastISel);
    EXPECT_TRUE(installed.shouldRunPass("Machine Instruction Scheduler", "function (exact)"));
    EXPECT_TRUE(machine->Options.EnableFastISel);  // only instruction selection switches it
    EXPECT_TRUE(installed.shouldRunPass(isel, "function (contracted)"));
    EXPECT_FALSE(machine->Options.EnableFastISel);
    EXPECT_TRUE(installed.shouldRunPass(isel, "function (exact)"));
    EXPECT_EQ(gate.functionsFastSelected(), 1u);
  }
  EXPECT_FALSE(machine->Options.EnableFastISel);  // restored
  llvm::Function* half = llvm::Function::Create(type, llvm::Function::InternalLinkage, "half", module);
  auto* entry = llvm::BasicBlock::Create(context, "entry", half);
  auto* narrowed = new llvm::FPTruncInst(half->getArg(0), llvm::Type::getHalfTy(context), "h", entry);
  llvm::ReturnInst::Create(context, new llvm::FPExtInst(narrowed, llvm::Type::getFloatTy(context), "f", entry), entry);
  jit::detail::CodegenPassGate gate(module, machine.get());
  EXPECT_TRUE(context.getOptPassGate().shouldRunPass(isel, "function (exact)"));
  EXPECT_FALSE(machine->Options.EnableFastISel);
  EXPECT_EQ(gate.functionsFastSelected(), 0u);
}

namespace {

// Integer and double loops, `groups` times over, with what the vectoriser
// makes of them for FastISel at O2: wrapping i32 multiplies and shifts,
// division and remainder by constants, min/max and selects, i32 -> f64
// conversions, fma, sqrt, minimum/maximum (defined on -0 and NaN).
// (memref<?xi32> ints[n], memref<?xf64> reals[n]) -> ().
codegen::Module typedLoops(std::size_t groups) {
  using codegen::Value;
  codegen::Module module("typed");
  codegen::FunctionBuilder b(module, "kernel", *parseFunctionType("(memref<?xi32>, memref<?xf64>) -> ()"));
  Value ints = b.arg(0), reals = b.arg(1), zero = b.index(0), one = b.index(1);
  Value n = b.dim(ints, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::int32_t k = 3 + static_cast<std::int32_t>(g % 5);
    b.forLoop(zero, n, one, [&](Value i) {
      Value x = b.load(ints, {i});
      b.store(((x * k) ^ (x << 3)) + b.div(x, b.i32(3)) - b.rem(x, b.i32(5)) + b.shrsi(x, b.i32(2)) +
                  b.shrui(x, b.i32(7)),
              ints, {i});
    });
    b.forLoop(zero, n, one, [&](Value i) {
      Value x = b.load(ints, {i});
      b.store(b.select(x < 0, b.max(x, b.i32(-k * 1000)), b.min(x - k, b.i32(1 << 30))), ints, {i});
    });
    b.forLoop(zero, n, one, [&](Value i) {
      Value d = b.load(reals, {i});
      b.store(b.fma(d, b.f64(0.5 + 0.125 * static_cast<double>(k)), b.cast(b.load(ints, {i}), ElementType::F64)),
              reals, {i});
    });
    b.forLoop(zero, n, one, [&](Value i) {
      Value d = b.load(reals, {i});
      b.store(b.maximumf(b.sqrt(b.abs(d)), d / 3.0) + b.minimumf(d, b.f64(-0.0)), reals, {i});
    });
  }
  b.ret();
  Error e = b.finish();
  EXPECT_FALSE(e) << e.str();
  return module;
}

}  // namespace

// FastISel meets the vectoriser's integer and double code only at O2 (O0
// vectorises nothing): O2 gives O0's bits on edge values of both types.
TEST(CodegenPassGate, FastSelectedIntegerAndDoubleLoopsGiveTheBitsOfO0) {
  jit::Jit o0Jit = test::makeJit({.optLevel = jit::OptLevel::O0});
  jit::Jit o2Jit = test::makeJit({.optLevel = jit::OptLevel::O2});
  jit::LoadedModule o0Module = test::valueOrFail(o0Jit.add(typedLoops(40)), "O0");
  jit::LoadedModule o2Module = test::valueOrFail(o2Jit.add(typedLoops(40)), "O2");
  const jit::Function o0 = test::valueOrFail(o0Module.function("kernel"), "kernel");
  const jit::Function o2 = test::valueOrFail(o2Module.function("kernel"), "kernel");
  const std::int32_t intPattern[] = {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(),
                                     -1, 0, 1, 7, -123456789, 1 << 30, -5, 65537};
  const double realPattern[] = {-0.0, 0.0, 5e-324, -2.2250738585072014e-308, 1e308, -1e308,
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::nan(""), 9007199254740993.0, 0.1, -2.5, 3.0};
  using Fn = void(runtime::StridedMemRef<std::int32_t, 1>*, runtime::StridedMemRef<double, 1>*);
  for (std::size_t count : {0u, 1u, 15u, 16u, 37u, 133u}) {
    std::vector<std::int32_t> ints(count);
    std::vector<double> reals(count);
    for (std::size_t i = 0; i < count; ++i) {
      ints[i] = intPattern[i % std::size(intPattern)];
      reals[i] = realPattern[(i * 3) % std::size(realPattern)];
    }
    auto results = [&](const jit::Function& fn) {
      std::vector<std::int32_t> i = ints;
      std::vector<double> r = reals;
      auto iView = runtime::makeView(std::span(i));
      auto rView = runtime::makeView(std::span(r));
      fn.cInterfaceAs<Fn>()(&iView, &rView);
      return std::pair(i, r);
    };
    const auto [o0Ints, o0Reals] = results(o0);
    const auto [o2Ints, o2Reals] = results(o2);
    EXPECT_EQ(o0Ints, o2Ints) << count << " values";
    EXPECT_TRUE(count == 0 || std::memcmp(o0Reals.data(), o2Reals.data(), count * sizeof(double)) == 0)
        << count << " values";
  }
}

// The typed loops are outlined, vectorised in both types, and selected by
// FastISel at O2.
TEST(CodegenPassGate, TypedLoopsAreOutlinedVectorisedAndFastSelected) {
  codegen::Module module = typedLoops(40);
  auto machine = optimizeAtO2(module);
  std::size_t outlined = 0, intVectors = 0, doubleVectors = 0;
  for (const llvm::Function& f : module.llvm()) {
    if (!f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) continue;
    ++outlined;
    for (const llvm::BasicBlock& block : f)
      for (const llvm::Instruction& inst : block) {
        auto* vector = llvm::dyn_cast<llvm::VectorType>(inst.getType());
        if (!vector) continue;
        intVectors += vector->getElementType()->isIntegerTy(32);
        doubleVectors += vector->getElementType()->isDoubleTy();
      }
  }
  ASSERT_GT(outlined, 1u);
  EXPECT_GT(intVectors, 40u);
  EXPECT_GT(doubleVectors, 40u);
  jit::detail::CodegenPassGate gate(module.llvm());
  test::valueOrFail(jit::detail::emitCode(module.llvm(), *machine, jit::detail::EmitKind::Object), "object");
  EXPECT_EQ(gate.functionsFastSelected(), outlined);
}
