// Test helper: LLVM IR text parsed into a module of a context of its own, for
// tests of the IR rewrites in jit/ (they run on llvm::Module, before memjit's
// engine sees it). A parse error ends the test with LLVM's message.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <source_location>
#include <string>
#include <string_view>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "support/expected.h"  // TestStopped

namespace memjit::test {

/// A parsed module and the context it lives in (declared first: destroyed last).
struct ParsedIR {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;

  llvm::Module& operator*() const noexcept { return *module; }
  llvm::Module* operator->() const noexcept { return module.get(); }
};

inline ParsedIR parseIR(std::string_view text, std::string_view name = "test",
                        std::source_location where = std::source_location::current()) {
  ParsedIR parsed{std::make_unique<llvm::LLVMContext>(), nullptr};
  llvm::SMDiagnostic diagnostic;
  parsed.module = llvm::parseIR(llvm::MemoryBufferRef(llvm::StringRef(text.data(), text.size()),
                                                      llvm::StringRef(name.data(), name.size())),
                                diagnostic, *parsed.context);
  if (!parsed.module) {
    const std::string message = "IR does not parse: line " + std::to_string(diagnostic.getLineNo()) + ": " +
                                diagnostic.getMessage().str();
    ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << message;
    throw TestStopped(message);
  }
  return parsed;
}

/// Whether `module` passes LLVM's verifier; when not, the test fails with its report.
inline bool verifies(const llvm::Module& module, std::source_location where = std::source_location::current()) {
  std::string report;
  llvm::raw_string_ostream os(report);
  const bool broken = llvm::verifyModule(module, &os);
  if (broken) ADD_FAILURE_AT(where.file_name(), static_cast<int>(where.line())) << os.str();
  return !broken;
}

}  // namespace memjit::test
