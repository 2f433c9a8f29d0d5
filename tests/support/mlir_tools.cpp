#include "support/mlir_tools.h"

#include "support/files.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memjit::test {

namespace {

Error run(const std::string& command, const std::string& errPath) {
  int status = std::system((command + " 2>" + errPath).c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Error(ErrorCode::CompileError, "`" + command + "` failed: " + readFile(errPath));
  return Error::success();
}

}  // namespace

std::string tempPath(const std::string& stem) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path();
  return (dir / ("memjit_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + stem))
      .string();
}

Expected<std::string> lowerWithMlir(const std::string& mlir, const PipelineOptions& options) {
  std::string in = tempPath("in.mlir"), out = tempPath("out.ll"), err = tempPath("err.txt");
  {
    std::ofstream f(in);
    f << mlir;
  }
  std::string ib = options.indexBitwidth == 64 ? "" : "=index-bitwidth=" + std::to_string(options.indexBitwidth);
  std::string func = options.barePtr ? "use-bare-ptr-memref-call-conv=1" : "";
  if (options.indexBitwidth != 64) func += std::string(func.empty() ? "" : " ") + "index-bitwidth=" + std::to_string(options.indexBitwidth);
  std::string cmd = std::string(MEMJIT_MLIR_OPT) + " " + options.firstPasses + " --finalize-memref-to-llvm" + ib +
                    " --convert-arith-to-llvm" + ib + " '--convert-func-to-llvm" +
                    (func.empty() ? "" : "=" + func) + "' --reconcile-unrealized-casts " + in + " | " +
                    MEMJIT_MLIR_TRANSLATE + " --mlir-to-llvmir -o " + out;
  Error e = run(cmd, err);
  std::string text = e ? std::string() : readFile(out);
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  if (e) return e;
  return text;
}

Error compileWithMlir(const std::string& mlir, const std::string& objectPath) {
  MEMJIT_ASSIGN_OR_RETURN(std::string ir, lowerWithMlir(mlir));
  std::string ll = tempPath("obj.ll"), err = tempPath("err.txt");
  {
    std::ofstream f(ll);
    f << ir;
  }
  Error e = run(std::string(MEMJIT_LLC) + " -O2 -filetype=obj -relocation-model=pic " + ll + " -o " + objectPath, err);
  std::remove(ll.c_str());
  std::remove(err.c_str());
  return e;
}

}  // namespace memjit::test
