// ORC failures classified by their LLVM error types (jit/llvm_error.h): the
// code a caller switches on and the symbols named in the message.
#include "jit/llvm_error.h"

#include <gtest/gtest.h>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/Shared/OrcError.h>
#if __has_include(<llvm/ExecutionEngine/Orc/SelfExecutorProcessControl.h>)  // LLVM 22 moved it
#include <llvm/ExecutionEngine/Orc/SelfExecutorProcessControl.h>
#else
#include <llvm/ExecutionEngine/Orc/ExecutorProcessControl.h>
#endif

#include "support/expect_error.h"

using namespace memjit;
using namespace memjit::jit::detail;
using memjit::test::expectError;

namespace {

class OrcErrors : public ::testing::Test {
 protected:
  std::shared_ptr<llvm::orc::SymbolStringPool> pool = std::make_shared<llvm::orc::SymbolStringPool>();
  llvm::orc::SymbolNameVector names(std::initializer_list<const char*> list) {
    llvm::orc::SymbolNameVector out;
    for (const char* name : list) out.push_back(pool->intern(name));
    return out;
  }
};

TEST_F(OrcErrors, SymbolsNotFoundIsNotFoundNamingEachSymbol) {
  auto failures = classifyOrc(llvm::make_error<llvm::orc::SymbolsNotFound>(pool, names({"zeta", "_mlir_ciface_f"})));
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].kind, OrcFailure::Kind::SymbolsNotFound);
  EXPECT_EQ(failures[0].symbols, (std::vector<std::string>{"_mlir_ciface_f", "zeta"}));
  expectError(combineOrc(failures, "cannot link module 'm'"), ErrorCode::NotFound,
              {"cannot link module 'm': undefined symbols '_mlir_ciface_f' (the C interface of function 'f'), "
               "'zeta'"});
}

TEST_F(OrcErrors, DuplicateDefinitionIsInvalidArgument) {
  expectError(fromOrc(llvm::make_error<llvm::orc::DuplicateDefinition>("twice"), "ctx"), ErrorCode::InvalidArgument,
              {"ctx: duplicate definition of symbol 'twice'"});
}

TEST_F(OrcErrors, SymbolsCouldNotBeRemovedIsInternal) {
  llvm::orc::SymbolNameSet set;
  set.insert(pool->intern("busy"));
  expectError(fromOrc(llvm::make_error<llvm::orc::SymbolsCouldNotBeRemoved>(pool, std::move(set)), "ctx"),
              ErrorCode::Internal, {"ctx: cannot remove symbol 'busy' (still in use)"});
}

TEST_F(OrcErrors, FailedToMaterializeIsACompileError) {
  auto control = llvm::orc::SelfExecutorProcessControl::Create(pool);
  ASSERT_TRUE(static_cast<bool>(control)) << llvm::toString(control.takeError());
  llvm::orc::ExecutionSession session(std::move(*control));
  llvm::orc::JITDylib& dylib = session.createBareJITDylib("d");
  auto symbols = std::make_shared<llvm::orc::SymbolDependenceMap>();
  (*symbols)[&dylib].insert(pool->intern("b"));
  (*symbols)[&dylib].insert(pool->intern("a"));
  expectError(fromOrc(llvm::make_error<llvm::orc::FailedToMaterialize>(pool, symbols), "ctx"),
              ErrorCode::CompileError, {"ctx: cannot materialize symbols 'a', 'b'"});
  llvm::consumeError(session.endSession());
}

TEST_F(OrcErrors, OtherErrorsKeepLLVMsMessage) {
  expectError(fromOrc(llvm::createStringError(llvm::inconvertibleErrorCode(), "relocation out of range"), "ctx"),
              ErrorCode::CompileError, {"ctx: relocation out of range"});
}

TEST_F(OrcErrors, AMissingSymbolOutranksTheRestOfAList) {
  llvm::Error list = llvm::joinErrors(
      llvm::createStringError(llvm::inconvertibleErrorCode(), "first"),
      llvm::joinErrors(llvm::make_error<llvm::orc::DuplicateDefinition>("d"),
                       llvm::make_error<llvm::orc::SymbolsNotFound>(pool, names({"m"}))));
  auto failures = classifyOrc(std::move(list));
  ASSERT_EQ(failures.size(), 3u);
  expectError(combineOrc(failures, "ctx"), ErrorCode::NotFound,
              {"ctx: first; duplicate definition of symbol 'd'; undefined symbol 'm'"});
}

TEST_F(OrcErrors, SuccessIsNoFailure) {
  EXPECT_TRUE(classifyOrc(llvm::Error::success()).empty());
  EXPECT_FALSE(fromOrc(llvm::Error::success(), "ctx"));
}

}  // namespace
