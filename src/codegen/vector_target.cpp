#include "memjit/codegen/vector_target.h"

#include <string>

#include <unistd.h>

#include <llvm/ADT/StringMap.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

namespace memjit::codegen {

namespace {

// Whether `features` enables `name` ("+name" present and not later "-name").
bool enabled(std::string_view features, std::string_view name) {
  bool on = false;
  std::size_t start = 0;
  while (start <= features.size()) {
    std::size_t end = features.find(',', start);
    if (end == std::string_view::npos) end = features.size();
    std::string_view f = features.substr(start, end - start);
    if (f.size() == name.size() + 1 && f.substr(1) == name) on = f[0] == '+';
    start = end + 1;
  }
  return on;
}

}  // namespace

VectorTarget VectorTarget::fromFeatures(std::string_view triple, std::string_view features) noexcept {
  VectorTarget t;
  llvm::Triple tt{llvm::StringRef(triple.data(), triple.size())};
  if (tt.isX86()) {
    t.registerBits = enabled(features, "avx512f") ? 512 : enabled(features, "avx") ? 256 : 128;
    t.registers = enabled(features, "avx512f") ? 32 : 16;
    t.fma = enabled(features, "fma") || enabled(features, "avx512f");
  } else if (tt.isAArch64()) {
    t.registerBits = 128;
    t.registers = 32;
    t.fma = true;
  }
  return t;
}

const VectorTarget& VectorTarget::host() {
  static const VectorTarget target = [] {
    llvm::SubtargetFeatures features;
    for (const auto& f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.first(), f.second);
    VectorTarget t = fromFeatures(llvm::sys::getProcessTriple(), features.getString());
#ifdef _SC_LEVEL2_CACHE_SIZE
    // glibc reads CPUID's cache leaves; elsewhere, or in a VM hiding
    // them, it gives 0 or -1 and the default stands.
    const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 >= 256 * 1024 && l2 <= 16 * 1024 * 1024) t.l2Bytes = l2;
#endif
    return t;
  }();
  return target;
}

}  // namespace memjit::codegen
