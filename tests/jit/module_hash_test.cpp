// Tests of the object cache key's structural digest (jit/module_hash.h): the
// same module gives the same digest in any context, and every change that can
// change the object changes it; what the walk does not cover falls back.
#include "jit/module_hash.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

namespace {

using memjit::jit::detail::structuralDigest;

// One function using most of what kernels hold: flags, predicates,
// alignments, metadata (loop hints, nontemporal), attributes, globals, phi,
// switch, vectors, calls.
const char* kBase = R"(
@table = internal constant [2 x double] [double 0.0, double 0x4340000000000001], align 16
@counter = global i64 0
declare float @llvm.fma.f32(float, float, float)
define internal fastcc float @helper(float %x) {
  %r = call float @llvm.fma.f32(float %x, float %x, float 1.0)
  ret float %r
}
define void @kernel(ptr noalias %p, i64 %n, float %s) #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %q = getelementptr inbounds float, ptr %p, i64 %i
  %v = load float, ptr %q, align 4
  %m = fmul fast float %v, %s
  %h = call fastcc float @helper(float %m)
  %w = insertelement <4 x float> poison, float %h, i64 0
  %sh = shufflevector <4 x float> %w, <4 x float> poison, <4 x i32> <i32 0, i32 0, i32 1, i32 0>
  %e = extractelement <4 x float> %sh, i64 1
  %c = fcmp olt float %e, 0.5
  %sel = select i1 %c, float %e, float -0.0
  store float %sel, ptr %q, align 4, !nontemporal !2
  %next = add nsw i64 %i, 1
  %done = icmp slt i64 %next, %n
  br i1 %done, label %loop, label %exit, !llvm.loop !0
exit:
  switch i64 %n, label %out [ i64 3, label %out ]
out:
  %t = load i64, ptr @counter, align 8
  %t1 = add i64 %t, 4503599627370497
  store i64 %t1, ptr @counter, align 8
  ret void
}
attributes #0 = { nounwind "target-cpu"="x86-64" }
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.vectorize.enable", i1 true}
!2 = !{i32 1}
!llvm.module.flags = !{!3}
!3 = !{i32 7, !"uwtable", i32 2}
)";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext& context, const std::string& ir) {
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseAssemblyString(ir, diagnostic, context);
  EXPECT_TRUE(module) << diagnostic.getMessage().str() << "\n" << ir;
  if (module) module->setModuleIdentifier("m");
  return module;
}

std::optional<std::array<std::uint8_t, 32>> digestOf(const std::string& ir) {
  llvm::LLVMContext context;
  auto module = parse(context, ir);
  return module ? structuralDigest(*module) : std::nullopt;
}

std::string replaced(std::string ir, const std::string& from, const std::string& to) {
  const auto at = ir.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) ir.replace(at, from.size(), to);
  return ir;
}

}  // namespace

TEST(StructuralDigest, TheSameModuleInAnotherContextHasTheSameDigest) {
  const auto base = digestOf(kBase);
  ASSERT_TRUE(base.has_value());
  // Another context numbering custom metadata kinds differently.
  llvm::LLVMContext context;
  context.getMDKindID("some.other.kind");
  context.getMDKindID("and.another");
  auto module = parse(context, kBase);
  ASSERT_TRUE(module);
  EXPECT_EQ(structuralDigest(*module), base);
  // Local value names never reach the object.
  EXPECT_EQ(digestOf(replaced(replaced(kBase, "%sel = select", "%chosen = select"), "float %sel, ptr", "float %chosen, ptr")),
            base);
}

TEST(StructuralDigest, EveryChangeThatCanChangeTheObjectChangesTheDigest) {
  const std::vector<std::pair<std::string, std::string>> changes = {
      {"double 0x4340000000000001]", "double 0x4340000000000000]"},  // 2^53 + 1 and 2^53
      {"[double 0.0,", "[double -0.0,"},
      {"float -0.0", "float 0.0"},
      {"float -0.0", "float 0x7FF8000000000000"},
      {"add i64 %t, 4503599627370497", "add i64 %t, 4503599627370496"},
      {"internal constant [2 x double]", "internal global [2 x double]"},
      {"align 16", "align 32"},
      {"@counter = global", "@counter = internal global"},
      {"define internal fastcc float @helper", "define internal float @helper"},
      {"call fastcc float @helper", "tail call fastcc float @helper"},
      {"ptr noalias %p", "ptr %p"},
      {"#0 = { nounwind", "#0 = { nounwind noinline"},
      {"\"target-cpu\"=\"x86-64\"", "\"target-cpu\"=\"skylake\""},
      {"getelementptr inbounds float", "getelementptr float"},
      {"load float, ptr %q, align 4", "load float, ptr %q, align 8"},
      {"load float, ptr %q, align 4", "load volatile float, ptr %q, align 4"},
      {"fmul fast float", "fmul float"},
      {"fmul fast float", "fmul nnan float"},
      {"fcmp olt", "fcmp ult"},
      {"icmp slt", "icmp sle"},
      {"add nsw i64 %i, 1", "add i64 %i, 1"},
      {"add nsw i64 %i, 1", "add nuw i64 %i, 1"},
      {"<i32 0, i32 0, i32 1, i32 0>", "<i32 0, i32 1, i32 0, i32 0>"},
      {"select i1 %c, float %e, float -0.0", "select i1 %c, float -0.0, float %e"},
      {"i64 3, label %out", "i64 4, label %out"},
      {"[ 0, %entry ], [ %next, %loop ]", "[ 1, %entry ], [ %next, %loop ]"},
      {", !nontemporal !2", ""},
      {"i1 true}", "i1 false}"},
      {"!{i32 7, !\"uwtable\", i32 2}", "!{i32 7, !\"uwtable\", i32 1}"},
      {"float 1.0)", "float 2.0)"},
      {"define void @kernel", "define dso_local void @kernel"},
      {"define void @kernel", "define hidden void @kernel"},
      {"define void @kernel", "define void @kernel2"},
      {"@counter = global i64 0", "@counter = global i64 0, section \".mydata\""},
  };
  std::map<std::array<std::uint8_t, 32>, std::string> seen;
  const auto base = digestOf(kBase);
  ASSERT_TRUE(base.has_value());
  seen[*base] = "base";
  for (const auto& [from, to] : changes) {
    const std::string ir = replaced(kBase, from, to);
    if (from == "define void @kernel" && to == "define void @kernel2") continue;  // checked below
    const auto digest = digestOf(ir);
    ASSERT_TRUE(digest.has_value()) << to;
    auto [it, inserted] = seen.emplace(*digest, to);
    EXPECT_TRUE(inserted) << "'" << to << "' has the digest of '" << it->second << "'";
  }
  // Renaming a defined function (the call sites stay): another symbol, another digest.
  std::string renamed = replaced(replaced(kBase, "@helper(float %x)", "@helper2(float %x)"), "@helper(float %m)",
                                 "@helper2(float %m)");
  EXPECT_NE(digestOf(renamed), base);
  llvm::LLVMContext context;
  auto module = parse(context, kBase);
  ASSERT_TRUE(module);
  module->setModuleIdentifier("other");
  EXPECT_NE(structuralDigest(*module), base);
  EXPECT_NE(digestOf("target triple = \"aarch64-unknown-linux-gnu\"\n" + std::string(kBase)), base);
  EXPECT_NE(digestOf("target datalayout = \"e-m:e-i64:64-n32:64\"\n" + std::string(kBase)), base);
}

TEST(StructuralDigest, WhatTheWalkDoesNotCoverHasNoDigest) {
  // Debug info, aliases, inline asm, comdats: the key falls back to bitcode.
  EXPECT_FALSE(digestOf(std::string(kBase) + "@alias = alias i64, ptr @counter\n").has_value());
  EXPECT_FALSE(digestOf(replaced(kBase, "%next = add nsw i64 %i, 1",
                                 "call void asm sideeffect \"nop\", \"\"()\n  %next = add nsw i64 %i, 1"))
                   .has_value());
  EXPECT_FALSE(digestOf(replaced(std::string(kBase) + "$c = comdat any\n", "@counter = global i64 0",
                                 "@counter = global i64 0, comdat($c)"))
                   .has_value());
  std::string debugBase = replaced(replaced(kBase, "!llvm.module.flags = !{!3}", "!llvm.module.flags = !{!3, !14}"),
                                   "#0 {", "#0 !dbg !12 {");
  const std::string withDebugInfo = replaced(debugBase +
                                                 "!14 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
                                                 "!llvm.dbg.cu = !{!10}\n"
                                                 "!10 = distinct !DICompileUnit(language: DW_LANG_C, file: !11, "
                                                 "emissionKind: FullDebug)\n"
                                                 "!11 = !DIFile(filename: \"k.c\", directory: \"/\")\n"
                                                 "!12 = distinct !DISubprogram(name: \"kernel\", unit: !10, "
                                                 "spFlags: DISPFlagDefinition)\n"
                                                 "!13 = !DILocation(line: 7, scope: !12)\n",
                                             "ret void", "ret void, !dbg !13");
  llvm::LLVMContext context;
  auto module = parse(context, withDebugInfo);
  ASSERT_TRUE(module);
  ASSERT_NE(module->getFunction("kernel")->getSubprogram(), nullptr);  // the parser kept it
  EXPECT_FALSE(structuralDigest(*module).has_value());
}
