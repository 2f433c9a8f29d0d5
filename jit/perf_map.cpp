#include "perf_map.h"
#include "llvm_compat.h"

#include <cstdio>
#include <mutex>
#include <string>

#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <unistd.h>

namespace memjit::jit::detail {
namespace {

class PerfMapPlugin final : public llvm::orc::ObjectLinkingLayer::Plugin {
 public:
  void modifyPassConfig(llvm::orc::MaterializationResponsibility&, llvm::jitlink::LinkGraph&,
                        llvm::jitlink::PassConfiguration& config) override {
    // After fixups every symbol has its final address.
    config.PostFixupPasses.push_back([](llvm::jitlink::LinkGraph& graph) -> llvm::Error {
      std::string lines;
      char line[64];
      for (llvm::jitlink::Symbol* symbol : graph.defined_symbols()) {
        if (!symbol->isCallable() || !symbol->hasName()) continue;
        std::snprintf(line, sizeof line, "%llx %llx ",
                      static_cast<unsigned long long>(symbol->getAddress().getValue()),
                      static_cast<unsigned long long>(symbol->getSize()));
        lines += line;
        lines += llvm_compat::symbolName(*symbol).str();
        lines += '\n';
      }
      if (!lines.empty()) append(lines);
      return llvm::Error::success();
    });
  }
  llvm::Error notifyFailed(llvm::orc::MaterializationResponsibility&) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey) override {
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib&, llvm::orc::ResourceKey,
                                   llvm::orc::ResourceKey) override {}

 private:
  static void append(const std::string& lines) {
    // One file per process, shared by every Jit in it.
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    const std::string path = "/tmp/perf-" + std::to_string(::getpid()) + ".map";
    if (std::FILE* f = std::fopen(path.c_str(), "a")) {
      std::fwrite(lines.data(), 1, lines.size(), f);
      std::fclose(f);
    }
  }
};

}  // namespace

std::unique_ptr<llvm::orc::ObjectLinkingLayer::Plugin> createPerfMapPlugin() {
  return std::make_unique<PerfMapPlugin>();
}

}  // namespace memjit::jit::detail
