#include "perf_jitdump.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/Debugging/DebugInfoSupport.h>
#include <llvm/ExecutionEngine/Orc/Debugging/PerfSupportPlugin.h>
#include <llvm/ExecutionEngine/Orc/TargetProcess/JITLoaderPerf.h>

#include "llvm_error.h"

namespace memjit::jit::detail {
namespace {

// The jitdump header (perf's tools/perf/Documentation/jitdump-specification.txt).
struct JitdumpHeader {
  std::uint32_t magic;
  std::uint32_t version;
  std::uint32_t totalSize;
  std::uint32_t elfMach;
  std::uint32_t pad1;
  std::uint32_t pid;
  std::uint64_t timestamp;
  std::uint64_t flags;
};
constexpr std::uint32_t kJitdumpMagic = 0x4A695444;  // "JiTD"

// The flags a correct header may have: bit 0 (timestamps from the CPU's
// clock, not CLOCK_MONOTONIC) is the only one the format defines, and an
// LLVM can set it only when asked to through JITDUMP_USE_ARCH_TIMESTAMP=1
// (19 and 22 cannot at all).
std::uint64_t validFlags() {
  const char* arch = std::getenv("JITDUMP_USE_ARCH_TIMESTAMP");
  return arch && std::string_view(arch) == "1" ? 1 : 0;
}

// Clears the flags of the header of `path`, a jitdump, that no writer set.
void clearUnsetFlags(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;
  JitdumpHeader header;
  const std::uint64_t valid = validFlags();
  if (::pread(fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
      header.magic == kJitdumpMagic && (header.flags & ~valid) != 0) {
    const std::uint64_t flags = header.flags & valid;
    (void)::pwrite(fd, &flags, sizeof flags, offsetof(JitdumpHeader, flags));
  }
  ::close(fd);
}

// Each jitdump LLVM writes stays mapped in this process (the marker perf
// record sees), as `.../jit-<pid>.dump` in /proc/self/maps: fixes them all.
void fixMappedJitdumps() {
  const std::string suffix = "/jit-" + std::to_string(::getpid()) + ".dump";
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const std::size_t path = line.find('/');
    if (path != std::string::npos && line.size() >= suffix.size() &&
        line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0)
      clearUnsetFlags(line.substr(path));
  }
}

// Set when a dump was opened whose header may still sit in LLVM's buffer:
// the first batch of records flushes it, and the header is fixed after that.
std::atomic<bool> headerPending{false};

// The wrappers return what LLVM's functions return (CWrapperFunctionResult
// in 19, CWrapperFunctionBuffer in 22), hence `auto`.
auto startJitdump(const char* data, std::size_t size) {
  auto result = llvm_orc_registerJITLoaderPerfStart(data, size);
  headerPending = true;
  return result;
}

auto writeRecords(const char* data, std::size_t size) {
  auto result = llvm_orc_registerJITLoaderPerfImpl(data, size);
  if (headerPending.exchange(false)) fixMappedJitdumps();
  return result;
}

}  // namespace

Error addPerfJitdump(llvm::orc::LLJIT& jit, llvm::orc::ObjectLinkingLayer& linker) {
  llvm::orc::ExecutionSession& session = jit.getExecutionSession();
  auto dylib = session.createJITDylib("memjit.perf");
  if (!dylib) return fromLLVM(dylib.takeError(), ErrorCode::Internal, "perf jitdump");
  llvm::orc::SymbolMap symbols;
  auto define = [&](const char* name, auto* function) {
    symbols[session.intern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                     llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
  };
  define("llvm_orc_registerJITLoaderPerfStart", &startJitdump);
  define("llvm_orc_registerJITLoaderPerfEnd", &llvm_orc_registerJITLoaderPerfEnd);
  define("llvm_orc_registerJITLoaderPerfImpl", &writeRecords);
  if (auto err = dylib->define(llvm::orc::absoluteSymbols(std::move(symbols))))
    return fromLLVM(std::move(err), ErrorCode::Internal, "perf jitdump");

  auto plugin = llvm::orc::PerfSupportPlugin::Create(session.getExecutorProcessControl(), *dylib,
                                                     /*EmitDebugInfo=*/true, /*EmitUnwindInfo=*/true);
  if (!plugin) return fromLLVM(plugin.takeError(), ErrorCode::Unsupported, "perf jitdump");
  // Keeps the DWARF sections (a pre-prune pass) the perf plugin's
  // post-fixup pass reads the line tables from.
  linker.addPlugin(std::make_unique<llvm::orc::DebugInfoPreservationPlugin>());
  linker.addPlugin(std::move(*plugin));
  return Error::success();
}

}  // namespace memjit::jit::detail
