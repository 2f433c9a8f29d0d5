// The JIT runs one code generator per pooled TargetMachine and level on module
// after module (jit/code_emitter.h). These tests hold it to producing exactly
// what a pipeline built for that one module produces, whatever came before.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "jit/code_emitter.h"
#include "jit/compile.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"

namespace memjit::jit::detail {
namespace {

// An optimised module ready for code generation, kept pristine: each emit works
// on a clone, because code generation changes the IR.
struct Prepared {
  std::string name;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::Module> clone() const { return llvm::CloneModule(*module); }
};

Prepared prepare(llvm::TargetMachine& machine, OptLevel level, const std::string& name,
                 const std::function<Error(codegen::Module&)>& build) {
  codegen::Module module(name);
  Error error = build(module);
  EXPECT_FALSE(error) << error.str();
  auto [context, llvmModule] = std::move(module).release();
  prepareModule(*llvmModule, machine);
  optimize(*llvmModule, machine, {level, true, true});
  return {name, std::move(context), std::move(llvmModule)};
}

std::vector<Prepared> kernels(llvm::TargetMachine& machine, OptLevel level) {
  std::vector<Prepared> out;
  out.push_back(prepare(machine, level, "add", [](codegen::Module& m) { return codegen::addElementwiseAdd(m, "add"); }));
  out.push_back(prepare(machine, level, "matmul", [](codegen::Module& m) { return codegen::addMatmul(m, "matmul"); }));
  out.push_back(prepare(machine, level, "transpose", [](codegen::Module& m) { return codegen::addTranspose(m, "t"); }));
  // External calls (malloc) and an unranked result: relocations and more symbols.
  out.push_back(prepare(machine, level, "copy", [](codegen::Module& m) {
    MEMJIT_TRY(codegen::addScaledCopyUnranked(m, "copy_unranked"));
    return codegen::addSum(m, "sum");
  }));
  return out;
}

std::unique_ptr<llvm::TargetMachine> hostMachine(OptLevel level) {
  auto machine = createTargetMachine(TargetSpec::host(), level);
  EXPECT_TRUE(machine) << machine.error().str();
  return machine ? std::move(*machine) : nullptr;
}

class CodeEmitterTest : public ::testing::TestWithParam<OptLevel> {};
}  // namespace
}  // namespace memjit::jit::detail

namespace memjit::jit {
// The level's name in GoogleTest's output (else the enum's raw bytes).
void PrintTo(OptLevel level, std::ostream* os) { *os << optLevelName(level); }
}  // namespace memjit::jit

namespace memjit::jit::detail {
namespace {

TEST_P(CodeEmitterTest, ReusedPipelineEmitsWhatAFreshOneEmits) {
  auto machine = hostMachine(GetParam());
  ASSERT_TRUE(machine);
  const auto modules = kernels(*machine, GetParam());
  std::vector<std::string> fresh;
  for (const Prepared& p : modules) {
    auto copy = p.clone();
    auto object = emitCode(*copy, *machine, EmitKind::Object);
    ASSERT_TRUE(object) << object.error().str();
    ASSERT_FALSE(object->empty());
    fresh.push_back(std::move(*object));
  }
  auto emitter = CodeEmitter::create(*machine, EmitKind::Object);
  ASSERT_TRUE(emitter) << emitter.error().str();
  // Every order a JIT might see: each module after each other one, twice.
  for (int round = 0; round < 2; ++round)
    for (std::size_t i = 0; i < modules.size(); ++i)
      for (std::size_t j = 0; j < modules.size(); ++j)
        for (std::size_t k : {i, j}) {
          auto copy = modules[k].clone();
          auto object = (*emitter)->emit(*copy);
          ASSERT_TRUE(object) << object.error().str();
          EXPECT_EQ(*object, fresh[k]) << modules[k].name << " after " << modules[i].name;
        }
}

// LLVM 22's AsmPrinter does not restate `.text` after `.file` when its reused
// streamer is already in that section from the previous module (LLVM 19 does).
// An assembler starts every file in .text, so both texts assemble to the same
// object; they are compared without that one redundant line.
std::string withoutInitialText(std::string assembly) {
  const std::size_t line = assembly.find('\n') + 1;
  if (line != 0 && assembly.compare(line, 7, "\t.text\n") == 0) assembly.erase(line, 7);
  return assembly;
}

TEST_P(CodeEmitterTest, AssemblyToo) {
  auto machine = hostMachine(GetParam());
  ASSERT_TRUE(machine);
  const auto modules = kernels(*machine, GetParam());
  auto emitter = CodeEmitter::create(*machine, EmitKind::Assembly);
  ASSERT_TRUE(emitter) << emitter.error().str();
  for (int round = 0; round < 2; ++round)
    for (const Prepared& p : modules) {
      auto a = p.clone(), b = p.clone();
      auto expected = emitCode(*a, *machine, EmitKind::Assembly);
      auto reused = (*emitter)->emit(*b);
      ASSERT_TRUE(expected && reused);
      EXPECT_EQ(withoutInitialText(*reused), withoutInitialText(*expected)) << p.name;
      EXPECT_NE(reused->find(".globl"), std::string::npos);
    }
}

INSTANTIATE_TEST_SUITE_P(Levels, CodeEmitterTest,
                         ::testing::Values(OptLevel::O0, OptLevel::O2, OptLevel::O3),
                         [](const auto& info) { return std::string(optLevelName(info.param)); });

// The pool keeps one emitter per level on the same machine. Building the O0
// pipeline used to switch that machine to FastISel for good, so every module
// compiled afterwards at O1-O3 was selected by FastISel (slower code, and the
// bf16 flushes of issue 24).
TEST(CodeEmitter, AnO0PipelineLeavesTheOtherLevelsOnSelectionDAG) {
  auto machine = hostMachine(OptLevel::O2);
  ASSERT_TRUE(machine);
  const auto optimised = kernels(*machine, OptLevel::O2);
  auto o2 = CodeEmitter::create(*machine, EmitKind::Assembly);
  ASSERT_TRUE(o2);
  std::vector<std::string> before;
  for (const Prepared& p : optimised) {
    auto text = (*o2)->emit(*p.clone());
    ASSERT_TRUE(text) << text.error().str();
    before.push_back(std::move(*text));
  }
  machine->setOptLevel(codegenOptLevel(OptLevel::O0));
  auto o0 = CodeEmitter::create(*machine, EmitKind::Assembly);
  ASSERT_TRUE(o0);
  const auto unoptimised = kernels(*machine, OptLevel::O0);
  ASSERT_TRUE((*o0)->emit(*unoptimised[1].clone()));
  machine->setOptLevel(codegenOptLevel(OptLevel::O2));
  for (std::size_t i = 0; i < optimised.size(); ++i) {
    auto after = (*o2)->emit(*optimised[i].clone());
    ASSERT_TRUE(after) << after.error().str();
    EXPECT_EQ(withoutInitialText(*after), withoutInitialText(before[i])) << optimised[i].name;
  }
}

TEST(CodeEmitter, DiagnosticErrorNamesTheModuleAndTheNextModuleIsUnaffected) {
  auto machine = hostMachine(OptLevel::O2);
  ASSERT_TRUE(machine);
  auto modules = kernels(*machine, OptLevel::O2);
  auto expected = emitCode(*modules[0].clone(), *machine, EmitKind::Object);
  ASSERT_TRUE(expected);

  auto emitter = CodeEmitter::create(*machine, EmitKind::Object);
  ASSERT_TRUE(emitter);
  llvm::LLVMContext context;
  llvm::SMDiagnostic diagnostic;
  auto bad = llvm::parseIR(
      llvm::MemoryBufferRef("define void @f() {\n  call void asm sideeffect \"not_an_instruction %eax\", \"\"()\n"
                            "  ret void\n}\n",
                            "bad_asm"),
      diagnostic, context);
  ASSERT_TRUE(bad);
  bad->setModuleIdentifier("bad_asm");
  prepareModule(*bad, *machine);
  auto failed = (*emitter)->emit(*bad);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code(), ErrorCode::CompileError);
  EXPECT_NE(failed.error().message().find("code generation for module 'bad_asm' failed"), std::string::npos)
      << failed.error().str();
  EXPECT_NE(failed.error().message().find("not_an_instruction"), std::string::npos) << failed.error().str();
  // The diagnostic handler the module's context had before is back.
  EXPECT_EQ(context.getDiagnosticHandlerCallBack(), nullptr);

  auto after = (*emitter)->emit(*modules[0].clone());
  ASSERT_TRUE(after) << after.error().str();
  EXPECT_EQ(*after, *expected);
}

}  // namespace
}  // namespace memjit::jit::detail
