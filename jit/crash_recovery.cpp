#include "crash_recovery.h"

#include <csignal>
#include <mutex>
#include <string>

#include <unistd.h>

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>

namespace memjit::jit::detail {
namespace {

// What one runRecoveringFromCrashes call on this thread learnt from LLVM.
struct Scope {
  std::string fatalMessage;
  bool fatal = false;
};

// The innermost scope of this thread; null outside memjit's recoverable
// compiles, which is how the process-wide handler tells "recover" from
// "behave as LLVM would".
thread_local Scope* currentScope = nullptr;

void fatalErrorHandler(void*, const char* reason, bool) {
  Scope* scope = currentScope;
  llvm::CrashRecoveryContext* context = llvm::CrashRecoveryContext::GetCurrent();
  if (scope && context) {
    scope->fatalMessage = reason ? reason : "";
    scope->fatal = true;
    // Jumps back into RunSafely below; report_fatal_error never resumes.
    context->HandleExit(1);
  }
  // LLVM's behaviour without a handler: the message, then (once this returns)
  // abort() or exit(1). write(2) because raw_ostream may report fatal errors.
  std::string line = std::string("LLVM ERROR: ") + (reason ? reason : "") + "\n";
  ssize_t written = ::write(2, line.data(), line.size());
  (void)written;
}

const char* signalName(int signal) {
  switch (signal) {
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGTRAP: return "SIGTRAP";
    default: return "signal";
  }
}

void enableRecovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    // remove first: an LLVM built with assertions refuses to overwrite a handler.
    llvm::remove_fatal_error_handler();
    llvm::install_fatal_error_handler(&fatalErrorHandler, nullptr);
  });
  // Every time: a crash signal outside any recovery scope makes LLVM disable
  // recovery (and put the previous signal handlers back) before re-raising.
  llvm::CrashRecoveryContext::Enable();
}

}  // namespace

Error runRecoveringFromCrashes(std::string_view moduleName, llvm::function_ref<Error()> body,
                               bool& crashed) {
  crashed = false;
  enableRecovery();
  Scope scope;
  // Restores the outer scope however this returns: normally, after the jump
  // back from a crash, or when `body` throws.
  struct Enter {
    Scope* outer;
    explicit Enter(Scope* inner) : outer(currentScope) { currentScope = inner; }
    ~Enter() { currentScope = outer; }
  } enter(&scope);
  Error result;
  llvm::CrashRecoveryContext context;
  const bool finished = context.RunSafely([&] { result = body(); });
  if (finished) return result;

  crashed = true;
  const std::string where = "while compiling module '" + std::string(moduleName) + "'";
  // Some of LLVM's messages end in a newline of their own.
  while (!scope.fatalMessage.empty() &&
         (scope.fatalMessage.back() == '\n' || scope.fatalMessage.back() == ' '))
    scope.fatalMessage.pop_back();
  if (scope.fatal)
    return Error(ErrorCode::CompileError, "LLVM ERROR: " + scope.fatalMessage + " (" + where + ")");
  // CrashRecoveryContext reports a signal as 128 + its number.
  const int signal = context.RetCode > 128 ? context.RetCode - 128 : context.RetCode;
  return Error(ErrorCode::CompileError, "LLVM crashed with signal " + std::to_string(signal) + " (" +
                                            signalName(signal) + ") " + where);
}

}  // namespace memjit::jit::detail
