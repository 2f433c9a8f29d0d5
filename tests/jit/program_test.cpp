// jit::Program: loading IR, bitcode and object files the way mlir-cpu-runner
// loads a module, constructors and destructors, functions by type text called
// with arrays, and each error loadProgram and Program report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>

#include "memjit/jit/aot.h"
#include "memjit/jit/program.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/memref.h"
#include "support/expect_error.h"
#include "support/files.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::expectError;

namespace {

// A constructor and a destructor that record their order in @state, and
// `sum`, whose C interface adds up a contiguous memref<?xf32>.
constexpr const char* kProgram = R"(
@state = global i32 0
@llvm.global_ctors = appending global [2 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 2, ptr @times10, ptr null }, { i32, ptr, ptr } { i32 1, ptr @plus3, ptr null }]
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 0, ptr @minus1, ptr null }]
define void @plus3() {
  %v = load i32, ptr @state
  %w = add i32 %v, 3
  store i32 %w, ptr @state
  ret void
}
define void @times10() {
  %v = load i32, ptr @state
  %w = mul i32 %v, 10
  store i32 %w, ptr @state
  ret void
}
define void @minus1() {
  %v = load i32, ptr @state
  %w = sub i32 %v, 1
  store i32 %w, ptr @state
  ret void
}
define float @_mlir_ciface_sum(ptr %d) {
entry:
  %aligned.p = getelementptr { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %d, i32 0, i32 1
  %aligned = load ptr, ptr %aligned.p
  %size.p = getelementptr { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %d, i32 0, i32 3, i32 0
  %n = load i64, ptr %size.p
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i2, %body ]
  %acc = phi float [ 0.0, %entry ], [ %acc2, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %done
body:
  %p = getelementptr float, ptr %aligned, i64 %i
  %v = load float, ptr %p
  %acc2 = fadd float %acc, %v
  %i2 = add i64 %i, 1
  br label %loop
done:
  ret float %acc
}
define i64 @pair(i32 %a, ptr %b, ...) {
  ret i64 0
}
)";

class ProgramTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = memjit::test::freshDir("jit/program/" +
                                  std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    path_ = (dir_ / "p.ll").string();
    std::ofstream(path_) << kProgram;
    auto jit = Jit::create({.vectorMath = false});
    ASSERT_TRUE(jit.ok()) << jit.error().str();
    jit_.emplace(std::move(*jit));
  }
  std::int32_t state(const Program& program) const {
    return *static_cast<const std::int32_t*>(*program.symbol("state"));
  }
  std::filesystem::path dir_;
  std::string path_;
  std::optional<Jit> jit_;
};

TEST_F(ProgramTest, ConstructorsByPriorityThenDestructorsOnce) {
  auto program = loadProgram(*jit_, path_);
  ASSERT_TRUE(program.ok()) << program.error().str();
  EXPECT_EQ(state(*program), 0) << "nothing runs before runConstructors";
  program->runConstructors();
  EXPECT_EQ(state(*program), 30) << "plus3 (priority 1) before times10 (priority 2)";
  program->runConstructors();
  EXPECT_EQ(state(*program), 30) << "only the first call runs them";
  program->runDestructors();
  program->runDestructors();
  EXPECT_EQ(state(*program), 29);
}

TEST_F(ProgramTest, DestructorsRunWhenTheProgramGoes) {
  void* stateAddress = nullptr;
  std::int32_t seen = 0;
  {
    auto program = loadProgram(*jit_, path_);
    ASSERT_TRUE(program.ok()) << program.error().str();
    program->runConstructors();
    stateAddress = *program->symbol("state");
    // Keep the module loaded past the Program to look at @state afterwards.
    auto keep = program->module();
    program = loadProgram(*jit_, path_);  // move-assignment runs the first one's destructors
    seen = *static_cast<std::int32_t*>(stateAddress);
  }
  EXPECT_EQ(seen, 29);
}

TEST_F(ProgramTest, FunctionByTypeTextCalledWithAnArray) {
  for (std::optional<OptLevel> level : {std::optional<OptLevel>{}, std::optional<OptLevel>{OptLevel::O2}}) {
    auto program = loadProgram(*jit_, path_, {.optLevel = level});
    ASSERT_TRUE(program.ok()) << program.error().str();
    auto sum = program->function("sum", "(memref<?xf32>) -> f32");
    ASSERT_TRUE(sum.ok()) << sum.error().str();
    std::vector<float> values{1.5f, 2.0f, -0.25f};
    auto result = sum->invoke({runtime::Variant(runtime::Buffer::fromMemRef(runtime::makeView(values)))});
    ASSERT_TRUE(result.ok()) << result.error().str();
    EXPECT_EQ(result->scalar().toDouble(), 3.25);
  }
}

TEST_F(ProgramTest, IRFunctionTypes) {
  auto program = loadProgram(*jit_, path_);
  ASSERT_TRUE(program.ok()) << program.error().str();
  auto pair = program->irFunctionType("pair");
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(pair->result, "i64");
  EXPECT_EQ(pair->parameters, (std::vector<std::string>{"i32", "ptr"}));
  EXPECT_TRUE(pair->variadic);
  EXPECT_EQ(program->irFunctionType("_mlir_ciface_sum")->result, "float");
  EXPECT_FALSE(program->irFunctionType("nope").has_value());
}

TEST_F(ProgramTest, BitcodeAndObjectFiles) {
  // An object from memjit's own AOT path; then the same through bitcode.
  const std::string object = (dir_ / "p.o").string(), bitcode = (dir_ / "p.bc").string();
  {
    llvm::LLVMContext context;
    llvm::SMDiagnostic diagnostic;
    auto module = llvm::parseIRFile(path_, diagnostic, context);
    ASSERT_TRUE(module);
    AotOutputs outputs;
    outputs.object = object;
    outputs.bitcode = bitcode;
    Error error = compileAhead(*module, outputs);
    ASSERT_FALSE(error) << error.str();
  }
  for (const std::string& file : {object, bitcode}) {
    auto program = loadProgram(*jit_, file);
    ASSERT_TRUE(program.ok()) << program.error().str();
    auto sum = program->function("sum", "(memref<?xf32>) -> f32");
    ASSERT_TRUE(sum.ok()) << sum.error().str();
    std::vector<float> values{4.0f, 0.5f};
    auto result = sum->invoke({runtime::Variant(runtime::Buffer::fromMemRef(runtime::makeView(values)))});
    ASSERT_TRUE(result.ok()) << result.error().str();
    EXPECT_EQ(result->scalar().toDouble(), 4.5);
    EXPECT_EQ(program->irFunctionType("_mlir_ciface_sum").has_value(), file == bitcode);
  }
}

TEST_F(ProgramTest, MissingFile) {
  expectError(loadProgram(*jit_, (dir_ / "nope.ll").string()).error(), ErrorCode::IoError,
              {"cannot read", "nope.ll", "No such file"});
}

TEST_F(ProgramTest, NotIR) {
  const std::string bad = (dir_ / "bad.ll").string();
  std::ofstream(bad) << "define nonsense\n";
  expectError(loadProgram(*jit_, bad).error(), ErrorCode::ParseError,
              {"bad.ll", "is neither LLVM IR nor an object file"});
}

TEST_F(ProgramTest, BrokenObject) {
  const std::string bad = (dir_ / "bad.o").string();
  std::ofstream(bad) << "\x7f" "ELF and then nothing\n";
  expectError(loadProgram(*jit_, bad).error(), ErrorCode::ParseError, {"bad.o", "is not an object file memjit can load"});
}

TEST_F(ProgramTest, MissingSharedLibrary) {
  expectError(loadProgram(*jit_, path_, {.sharedLibraries = {"/no/such/libx.so"}}).error(), ErrorCode::NotFound,
              {"p.ll", "shared library '/no/such/libx.so' does not exist"});
}

TEST_F(ProgramTest, BadTypeText) {
  auto program = loadProgram(*jit_, path_);
  ASSERT_TRUE(program.ok());
  expectError(program->function("sum", "(memref<?xf32> -> f32").error(), ErrorCode::ParseError,
              {"type of function 'sum'"});
}

TEST_F(ProgramTest, NoCInterface) {
  auto program = loadProgram(*jit_, path_);
  ASSERT_TRUE(program.ok());
  expectError(program->function("plus3", "() -> ()").error(), ErrorCode::NotFound,
              {"defines no '_mlir_ciface_plus3'", "llvm.emit_c_interface"});
  expectError(program->symbol("nope").error(), ErrorCode::NotFound, {"p.ll", "defines no symbol 'nope'"});
}

}  // namespace
