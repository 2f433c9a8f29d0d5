#include "isolate.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

namespace memjit::difftest {

std::string crashOf(const Program& p, const std::vector<Oracle>& oracles) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0) return "";
  if (child == 0) {
    // LLVM's fatal-error message would repeat for every candidate of a reduction.
    if (std::freopen("/dev/null", "w", stderr) == nullptr) ::_exit(3);
    auto runner = Runner::create();
    if (!runner) ::_exit(2);
    std::vector<Mismatch> mismatches;
    BatchStats stats;
    runner->run({p}, oracles, mismatches, stats);
    ::_exit(mismatches.empty() ? 0 : 1);
  }
  int status = 0;
  if (::waitpid(child, &status, 0) != child) return "";
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "";
}

}  // namespace memjit::difftest
