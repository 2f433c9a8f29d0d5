// Optimisation remarks (remarks.h): the loop vectoriser's verdicts collected
// by Jit::add with AddOptions::remarks and by compileAhead, and their per-loop
// summary: a saxpy loop vectorised with its width, an in-order float sum
// missed with LLVM's reason, nothing collected when not asked.
#include "memjit/jit/remarks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "support/call_jit.h"
#include "support/jit.h"

namespace memjit::jit {
namespace {

using memjit::test::makeJit;

codegen::Module saxpyAndSum(bool debugInfo) {
  codegen::Module m("loops");
  codegen::KernelOptions options;
  options.debugInfo = debugInfo;
  EXPECT_FALSE(codegen::addSaxpy(m, "axpy", options));
  EXPECT_FALSE(codegen::addSum(m, "total", options));
  return m;
}

// The kernel `f` itself, or `_mlir_ciface_f` when the Jit moved its body there
// (JitOptions::compileExpandedOnFirstUse).
bool isKernel(const std::string& function, const std::string& kernel) {
  return function == kernel || function == "_mlir_ciface_" + kernel;
}

const LoopVectorization* loopIn(const std::vector<LoopVectorization>& loops, const std::string& kernel) {
  for (const LoopVectorization& loop : loops)
    if (isKernel(loop.function, kernel)) return &loop;
  return nullptr;
}

void expectSaxpyVectorisedAndSumMissed(const std::vector<Remark>& remarks) {
  const std::vector<LoopVectorization> loops = loopVectorization(remarks);
  const LoopVectorization* axpy = loopIn(loops, "axpy");
  ASSERT_NE(axpy, nullptr) << "no verdict on axpy's loop";
  EXPECT_TRUE(axpy->vectorized) << describe(*axpy);
  EXPECT_GE(axpy->width, 4u) << describe(*axpy);  // every x86-64 has 128-bit vectors: 4 floats at least
  EXPECT_GE(axpy->interleave, 1u);
  EXPECT_TRUE(axpy->reason.empty()) << axpy->reason;
  EXPECT_NE(describe(*axpy).find("vectorised, width " + std::to_string(axpy->width)), std::string::npos)
      << describe(*axpy);

  const LoopVectorization* total = loopIn(loops, "total");
  ASSERT_NE(total, nullptr) << "no verdict on total's loop";
  EXPECT_FALSE(total->vectorized);
  EXPECT_EQ(total->width, 0u);
  // An in-order float sum cannot be reassociated without fast-math's permission.
  EXPECT_NE(total->reason.find("floating-point"), std::string::npos) << total->reason;
  EXPECT_NE(describe(*total).find("not vectorised: "), std::string::npos) << describe(*total);

  bool sawPassed = false, sawMissed = false;
  for (const Remark& r : remarks) {
    EXPECT_EQ(r.pass, "loop-vectorize");
    sawPassed |= r.kind == RemarkKind::Passed && r.name == "Vectorized" && isKernel(r.function, "axpy");
    sawMissed |= r.kind == RemarkKind::Missed && isKernel(r.function, "total");
  }
  EXPECT_TRUE(sawPassed);
  EXPECT_TRUE(sawMissed);
}

TEST(Remarks, JitCollectsVerdictsPerLoop) {
  Jit jit = makeJit({.optLevel = OptLevel::O2});
  auto mod = jit.add(saxpyAndSum(false), {.remarks = true});
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  expectSaxpyVectorisedAndSumMissed(mod->remarks());
  for (const LoopVectorization& loop : loopVectorization(mod->remarks())) {
    EXPECT_EQ(loop.file, "");  // no debug info: no location
    EXPECT_EQ(loop.line, 0u);
  }
  const Remark* vectorized = nullptr;
  for (const Remark& r : mod->remarks())
    if (r.name == "Vectorized") vectorized = &r;
  ASSERT_NE(vectorized, nullptr);
  EXPECT_NE(vectorized->message.find("vectorized loop (vectorization width: "), std::string::npos)
      << vectorized->message;
}

TEST(Remarks, DebugInfoGivesEachLoopItsGeneratorLine) {
  Jit jit = makeJit({.optLevel = OptLevel::O2});
  auto mod = jit.add(saxpyAndSum(true), {.remarks = true});
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  expectSaxpyVectorisedAndSumMissed(mod->remarks());
  for (const LoopVectorization& loop : loopVectorization(mod->remarks())) {
    EXPECT_NE(loop.file, "") << describe(loop);
    EXPECT_GT(loop.line, 0u) << describe(loop);
    EXPECT_EQ(describe(loop).rfind(loop.file + ":" + std::to_string(loop.line) + ":", 0), 0u) << describe(loop);
  }
}

TEST(Remarks, NothingIsCollectedUnlessAsked) {
  Jit jit = makeJit({.optLevel = OptLevel::O2});
  auto mod = jit.add(saxpyAndSum(false));
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  EXPECT_TRUE(mod->remarks().empty());
  EXPECT_TRUE(LoadedModule().remarks().empty());
}

// A loop whose vectorisation is asked for (llvm.loop.vectorize.enable, as
// LoopOptions sets it) and impossible (its trip count is data-dependent):
// LLVM's default handler printed "warning: loop not vectorized" to stderr.
constexpr const char* kForcedUnvectorisableIR = R"(
define i64 @first_zero(ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %a = getelementptr inbounds i64, ptr %p, i64 %i
  %v = load i64, ptr %a, align 8
  %next = add i64 %i, 1
  %done = icmp eq i64 %v, 0
  br i1 %done, label %exit, label %loop, !llvm.loop !0
exit:
  ret i64 %i
}
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
)";

TEST(Remarks, NothingIsPrintedWhetherAskedOrNot) {
  for (bool asked : {false, true}) {
    Jit jit = makeJit({.optLevel = OptLevel::O2});
    ::testing::internal::CaptureStderr();
    auto mod = jit.addIR(kForcedUnvectorisableIR, "forced", {.remarks = asked});
    const std::string printed = ::testing::internal::GetCapturedStderr();
    ASSERT_TRUE(mod.ok()) << mod.error().message();
    EXPECT_EQ(printed, "") << "remarks asked: " << asked;
    EXPECT_EQ(mod->remarks().empty(), !asked);
    std::int64_t data[] = {3, 2, 0, 5};
    auto f = mod->symbol("first_zero");
    ASSERT_TRUE(f.ok()) << f.error().message();
    EXPECT_EQ(test::callJit<std::int64_t(std::int64_t*)>(*f, data), 2);
  }
}

TEST(Remarks, AskingForRemarksCompilesPastTheCache) {
  auto cache = ObjectCache::inMemory();
  Jit jit = makeJit({.optLevel = OptLevel::O2, .cache = cache});
  auto first = jit.add(saxpyAndSum(false));
  ASSERT_TRUE(first.ok()) << first.error().message();
  auto cached = jit.add(saxpyAndSum(false));
  ASSERT_TRUE(cached.ok());
  EXPECT_TRUE(cached->fromCache());
  EXPECT_TRUE(cached->remarks().empty());
  auto compiled = jit.add(saxpyAndSum(false), {.remarks = true});
  ASSERT_TRUE(compiled.ok()) << compiled.error().message();
  EXPECT_FALSE(compiled->fromCache());
  expectSaxpyVectorisedAndSumMissed(compiled->remarks());
}

TEST(Remarks, NothingVectorisesBelowO2) {
  Jit jit = makeJit({.optLevel = OptLevel::O1});
  auto mod = jit.add(saxpyAndSum(false), {.remarks = true});
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  // The vectoriser runs only to report that it may not (PipelineTuningOptions).
  const auto loops = loopVectorization(mod->remarks());
  EXPECT_EQ(loops.size(), 2u);
  for (const LoopVectorization& loop : loops) EXPECT_FALSE(loop.vectorized) << describe(loop);
}

TEST(Remarks, CompileAheadCollectsTheSame) {
  codegen::Module m = saxpyAndSum(false);
  std::vector<Remark> remarks{Remark{}};  // replaced, not appended to
  AotOptions options;
  options.remarks = &remarks;
  ASSERT_FALSE(compileAhead(m, AotOutputs{}, options));
  expectSaxpyVectorisedAndSumMissed(remarks);
}

TEST(Remarks, SummaryGroupsByLocationAndKeepsOnlyTheVectoriser) {
  auto remark = [](RemarkKind kind, std::string name, unsigned line, std::string message,
                   std::vector<RemarkArgument> args = {}) {
    Remark r;
    r.kind = kind;
    r.pass = "loop-vectorize";
    r.name = std::move(name);
    r.function = "f";
    r.file = "k.cpp";
    r.line = line;
    r.message = std::move(message);
    r.args = std::move(args);
    return r;
  };
  Remark other = remark(RemarkKind::Passed, "Inlined", 1, "inlined");
  other.pass = "inline";
  const std::vector<Remark> remarks{
      other,
      remark(RemarkKind::Analysis, "CantReorderFPOps", 3,
             "loop not vectorized: cannot prove it is safe to reorder floating-point operations"),
      remark(RemarkKind::Missed, "MissedDetails", 3, "loop not vectorized"),
      remark(RemarkKind::Analysis, "VectorizationNotBeneficial", 7,
             "the cost-model indicates that vectorization is not beneficial"),
      remark(RemarkKind::Passed, "Interleaved", 7, "interleaved loop (interleaved count: 2)",
             {{"InterleaveCount", "2"}}),
      remark(RemarkKind::Passed, "Vectorized", 9, "vectorized loop (vectorization width: vscale x 4, ...)",
             {{"VectorizationFactor", "vscale x 4"}, {"InterleaveCount", "1"}}),
      // After the verdict, at the conversion's line: a note on loop 9, not a loop of its own.
      remark(RemarkKind::Analysis, "VectorMixedPrecision", 10, "floating point conversion changes vector width."),
  };
  const auto loops = loopVectorization(remarks);
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_FALSE(loops[0].vectorized);
  EXPECT_EQ(loops[0].reason, "cannot prove it is safe to reorder floating-point operations");
  EXPECT_EQ(describe(loops[0]),
            "k.cpp:3:0: in 'f': not vectorised: cannot prove it is safe to reorder floating-point operations");
  EXPECT_FALSE(loops[1].vectorized);
  EXPECT_EQ(loops[1].width, 1u);
  EXPECT_EQ(loops[1].interleave, 2u);
  EXPECT_EQ(describe(loops[1]), "k.cpp:7:0: in 'f': not vectorised (interleaved 2x): the cost-model indicates "
                                "that vectorization is not beneficial");
  EXPECT_TRUE(loops[2].vectorized);
  EXPECT_TRUE(loops[2].scalable);
  EXPECT_EQ(loops[2].width, 4u);
  EXPECT_EQ(loops[2].notes, "floating point conversion changes vector width.");
  EXPECT_EQ(describe(loops[2]), "k.cpp:9:0: in 'f': vectorised, width vscale x 4, interleave 1 (note: floating "
                                "point conversion changes vector width.)");
  EXPECT_STREQ(remarkKindName(RemarkKind::Analysis), "analysis");
}

}  // namespace
}  // namespace memjit::jit
