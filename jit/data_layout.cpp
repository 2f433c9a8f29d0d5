#include "data_layout.h"

#include <optional>
#include <string>

#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include "compile.h"

namespace memjit::jit::detail {
namespace {

// LLVM 19's X86TargetMachine computes this from the triple alone for 64-bit
// ELF (computeDataLayout in X86TargetMachine.cpp): no CPU or feature changes it.
constexpr const char* kX86_64ElfLayout =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

// LLVM 22's answer, where the LLVM in use has it (a template, so that the call
// is only compiled where it exists).
template <typename T>
std::optional<std::string> layoutFromTriple(const T& triple) {
  if constexpr (requires { triple.computeDataLayout(); })
    return triple.computeDataLayout();
  else
    return std::nullopt;
}

}  // namespace

Expected<llvm::DataLayout> dataLayoutFor(const TargetSpec& spec) {
  const llvm::Triple triple(spec.triple);
  if (std::optional<std::string> layout = layoutFromTriple(triple)) return llvm::DataLayout(*layout);
  if (triple.getArch() == llvm::Triple::x86_64 && triple.isOSBinFormatELF() &&
      triple.getEnvironment() != llvm::Triple::GNUX32)
    return llvm::DataLayout(kX86_64ElfLayout);
  MEMJIT_ASSIGN_OR_RETURN(auto machine, createTargetMachine(spec, OptLevel::O0));
  return machine->createDataLayout();
}

}  // namespace memjit::jit::detail
