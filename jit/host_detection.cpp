#include "host_detection.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

#if defined(__x86_64__) && defined(__GLIBC__) && __has_include(<sys/platform/x86.h>)
#include <cpuid.h>
// glibc's header spells C's _Bool in its inline functions, which clang rejects in C++ (g++ accepts it).
#if defined(__clang__) && !defined(_Bool)
#define _Bool bool
#define MEMJIT_UNDEFINE_BOOL
#endif
#include <sys/platform/x86.h>
#ifdef MEMJIT_UNDEFINE_BOOL
#undef _Bool
#undef MEMJIT_UNDEFINE_BOOL
#endif
#define MEMJIT_HOST_FINGERPRINT 1
#endif

#ifndef MEMJIT_VERSION
#define MEMJIT_VERSION "unknown"
#endif

namespace memjit::jit::detail {
namespace {

constexpr const char* kMagic = "memjit-host 1";

bool onlyChars(const std::string& text, std::string_view allowed) {
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || allowed.find(c) != std::string_view::npos;
  });
}

std::string hex(const std::array<std::uint8_t, 32>& bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::uint8_t b : bytes) out += {digits[b >> 4], digits[b & 15]};
  return out;
}

// The memo's name: the fingerprint with what else decides LLVM's answer.
std::string memoHash(const std::string& fingerprint) {
  llvm::BLAKE3 hash;
  const std::string text = fingerprint + "\nllvm " LLVM_VERSION_STRING "\nmemjit " MEMJIT_VERSION "\n" +
                           llvm::sys::getProcessTriple();
  hash.update(llvm::StringRef(text));
  return hex(hash.final());
}

std::optional<TargetSpec> readMemo(const std::string& path, const std::string& hash) {
  std::ifstream in(path);
  std::string magic, storedHash;
  TargetSpec spec;
  if (!in || !std::getline(in, magic) || !std::getline(in, storedHash) || !std::getline(in, spec.triple) ||
      !std::getline(in, spec.cpu) || !std::getline(in, spec.features))
    return std::nullopt;
  // The last line marks a complete entry: a truncated one may end in a
  // shorter but well-formed feature list.
  std::string end, rest;
  if (magic != kMagic || storedHash != hash || !std::getline(in, end) || end != "end" || std::getline(in, rest))
    return std::nullopt;
  if (spec.triple != llvm::sys::getProcessTriple() || spec.cpu.empty() || !onlyChars(spec.cpu, "-_.") ||
      !onlyChars(spec.features, "+-_.,"))
    return std::nullopt;
  return spec;
}

void writeMemo(const std::string& path, const std::string& hash, const TargetSpec& spec) {
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kMagic << '\n' << hash << '\n' << spec.triple << '\n' << spec.cpu << '\n' << spec.features << "\nend\n";
    if (!out.flush()) {
      std::remove(temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) std::remove(temporary.c_str());
}

}  // namespace

TargetSpec detectHost() {
  TargetSpec s;
  s.triple = llvm::sys::getProcessTriple();
  s.cpu = llvm::sys::getHostCPUName().str();
  llvm::SubtargetFeatures features;
  for (const auto& f : llvm::sys::getHostCPUFeatures()) features.AddFeature(f.first(), f.second);
  s.features = features.getString();
  return s;
}

std::optional<std::string> hostFingerprint() {
#ifdef MEMJIT_HOST_FINGERPRINT
  std::ostringstream text;
  text << std::hex << "vendor " << (__builtin_cpu_is("intel") ? "intel" : __builtin_cpu_is("amd") ? "amd" : "other");
  // glibc's leaves (CPUID_INDEX_1 ... CPUID_INDEX_14_ECX_0): what the CPU
  // reports and what the OS lets a process use (glibc folds xgetbv into it).
  for (unsigned leaf = 0; leaf <= CPUID_INDEX_14_ECX_0; ++leaf) {
    const cpuid_feature* f = __x86_get_cpuid_feature_leaf(leaf);
    if (!f) return std::nullopt;
    text << "\nleaf " << leaf;
    for (int r = 0; r < 4; ++r) {
      unsigned value = f->cpuid_array[r];
      if (leaf == CPUID_INDEX_1 && r == 1) value &= 0x00ffffffu;  // EBX[31:24]: the initial APIC ID
      text << ' ' << value << '/' << f->active_array[r];
    }
  }
  const cpuid_feature* leaf1 = __x86_get_cpuid_feature_leaf(CPUID_INDEX_1);
  if (leaf1->cpuid_array[2] & (1u << 27)) {  // OSXSAVE: LLVM reads XCR0 itself
    unsigned eax = 0, edx = 0;
    __asm__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    text << "\nxcr0 " << edx << ' ' << eax;
  }
  const cpuid_feature* leaf71 = __x86_get_cpuid_feature_leaf(CPUID_INDEX_7_ECX_1);
  if (leaf71->cpuid_array[3] & (1u << 19)) {  // AVX10: its version and widths are in leaf 0x24
    unsigned a = 0, b = 0, c = 0, d = 0;
    __cpuid_count(0x24, 0, a, b, c, d);
    text << "\nleaf24 " << a << ' ' << b << ' ' << c << ' ' << d;
  }
  return text.str();
#else
  return std::nullopt;
#endif
}

TargetSpec hostThroughDirectory(const std::string& directory) {
  const std::optional<std::string> fingerprint = hostFingerprint();
  if (!fingerprint) return detectHost();
  const std::string hash = memoHash(*fingerprint);
  const std::string path = directory + "/host-" + hash + ".txt";
  if (std::optional<TargetSpec> remembered = readMemo(path, hash)) return *remembered;
  TargetSpec detected = detectHost();
  writeMemo(path, hash, detected);
  return detected;
}

const TargetSpec& hostTarget(const std::string& directory) {
  static std::once_flag once;
  static const TargetSpec* spec = nullptr;
  std::call_once(once, [&] {
    spec = new TargetSpec(directory.empty() ? detectHost() : hostThroughDirectory(directory));
  });
  return *spec;
}

}  // namespace memjit::jit::detail
