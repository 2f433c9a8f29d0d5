// IR written by an older LLVM than the one memjit is built with: textual IR
// that uses a constant expression LLVM has since removed (MLIR 19 writes `mul`
// ones for constant sizes; LLVM 21 removed them) is refused with an error that
// names the cause and the remedy, and the same IR as the older LLVM's bitcode
// loads and runs (the bitcode reader turns the constant into instructions).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <llvm/Config/llvm-config.h>

#include "memjit/jit/program.h"
#include "support/call_jit.h"
#include "support/expect_error.h"
#include "support/files.h"
#include "support/jit.h"

using namespace memjit;

namespace {

// sizeof(float) * 4 as MLIR 19 spells a constant byte count.
constexpr const char* kMulConstantExpression = R"(
define i64 @bytes_of_four_floats() {
  ret i64 mul (i64 ptrtoint (ptr getelementptr (float, ptr null, i64 1) to i64), i64 4)
}
)";

// LLVM 21 removed the `mul` constant expression from the IR (and its parser).
constexpr bool kParserKnowsMul = LLVM_VERSION_MAJOR < 21;

std::int64_t callBytesOfFourFloats(jit::Program& program) {
  auto address = program.symbol("bytes_of_four_floats");
  if (!address) {
    ADD_FAILURE() << address.error().str();
    return -1;
  }
  return test::callJit<std::int64_t()>(*address);
}

class LlvmVersionSkew : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::freshDir("error/llvm_version/" +
                          std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    text_ = (dir_ / "mul.ll").string();
    std::ofstream(text_) << kMulConstantExpression;
  }
  std::filesystem::path dir_;
  std::string text_;
};

TEST_F(LlvmVersionSkew, TextualMulConstantExpression) {
  jit::Jit jit = test::makeJit();
  auto program = jit::loadProgram(jit, text_);
  if (kParserKnowsMul) {
    ASSERT_TRUE(program) << program.error().str();
    EXPECT_EQ(callBytesOfFourFloats(*program), 16);
    return;
  }
  ASSERT_FALSE(program);
  test::expectError(program.error(), ErrorCode::ParseError,
                    {("'" + text_ + "': this textual IR").c_str(), "(LLVM says: ", "mul.ll:3:",
                     "mul constexprs are no longer supported",
                     "this textual IR uses a constant-expression `mul`",
                     ("LLVM " + std::to_string(LLVM_VERSION_MAJOR) + "'s IR parser").c_str(),
                     "written by an older LLVM or MLIR", "llvm-as-19 file.ll -o file.bc", "pass the .bc",
                     "memjit built with the older LLVM"});
  EXPECT_EQ(program.error().message().find("neither LLVM IR"), std::string::npos) << program.error().str();
}

// The hint is for removed constant expressions only: other parse errors keep LLVM's message alone.
TEST_F(LlvmVersionSkew, OtherParseErrorsGetNoHint) {
  jit::Jit jit = test::makeJit();
  const std::string broken = (dir_ / "broken.ll").string();
  std::ofstream(broken) << "define i64 @f() {\n  ret i64 frobnicate\n}\n";
  auto program = jit::loadProgram(jit, broken);
  ASSERT_FALSE(program);
  test::expectError(program.error(), ErrorCode::ParseError, {"broken.ll:2:"});
  EXPECT_EQ(program.error().message().find("constant-expression"), std::string::npos) << program.error().str();
}

TEST_F(LlvmVersionSkew, BitcodeFromLlvm19Loads) {
#ifndef MEMJIT_LLVM_AS_19
  GTEST_SKIP() << "llvm-as-19 not found (install llvm-19): cannot make LLVM 19 bitcode";
#else
  const std::string bitcode = (dir_ / "mul.bc").string();
  const std::string command = std::string("'") + MEMJIT_LLVM_AS_19 + "' '" + text_ + "' -o '" + bitcode + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  jit::Jit jit = test::makeJit();
  auto program = jit::loadProgram(jit, bitcode);
  ASSERT_TRUE(program) << program.error().str();
  EXPECT_EQ(callBytesOfFourFloats(*program), 16);
#endif
}

}  // namespace
