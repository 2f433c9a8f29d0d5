// Compiling a large module's outlined loops in parts, on several threads
// (internal to jit/).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "memjit/error.h"
#include "memjit/jit/options.h"

namespace llvm {
class Function;
class GlobalValue;
class Module;
}

namespace memjit::jit::detail {

/// Modules whose outlined loops (large_functions.h) hold more IR instructions
/// than this, in all, compile them apart from the rest of the module.
inline constexpr std::size_t kCompileInPartsAbove = LargeFunctionOptions{}.compileInPartsAbove;

/// Each part holds consecutive outlined functions up to about this many IR
/// instructions (one function may exceed it alone).
inline constexpr std::size_t kInstructionsPerPart = LargeFunctionOptions{}.instructionsPerPart;

/// The functions outlineLoopsOfLargeFunctions made in a module, cut into
/// parts of up to `perPart` IR instructions each, to be compiled apart from
/// the rest of the module, each in an LLVMContext of its own on another
/// thread: for a module whose outlined functions hold more than `above`
/// instructions in all, and where no part would have to share something only
/// one object can hold (module-level assembly, appending globals such as
/// llvm.used, a writable or thread-local internal global, or a weak, common
/// or COMDAT definition an outlined loop uses).
///
/// Why: the outlined loops are what a large generated kernel's O2 compile
/// spends its time on (loops/100K: 16,666 6-op loops outlined into ~800
/// functions, 23-28 s of CPU on one thread), and they never call each other.
/// Each moved function becomes an external definition of hidden visibility
/// (its name was unique in the module, and every module links into a symbol
/// table of its own), called from the rest by name. An internal function or
/// constant it uses is copied into its part (still internal there), so the
/// part optimises as the module did: what is lost is interprocedural
/// optimisation between the loops and their caller (constants the caller
/// passes, attributes inferred from the bodies), which the loops' `noinline`
/// already confined to those arguments. Parts are cut by size only, so the
/// code does not depend on the machine's number of cores.
class ModuleSplit {
 public:
  /// The split of `module`, or nullopt (and `module` unchanged) when it is
  /// below `above` or cannot be split. Makes the functions to move external
  /// and hidden.
  static std::optional<ModuleSplit> plan(llvm::Module& module, std::size_t above = kCompileInPartsAbove,
                                         std::size_t perPart = kInstructionsPerPart);

  std::size_t parts() const noexcept { return groups_.size(); }
  /// Part `k`'s bitcode: a copy of the module defining that part's functions
  /// (and copies of the internal functions and constants they use) and
  /// declaring everything else.
  std::string writePart(std::size_t k) const;
  /// Leaves the module declaring what the parts define: after every writePart.
  void removeParts();

 private:
  ModuleSplit(llvm::Module& module, std::vector<std::vector<llvm::Function*>> groups,
              std::vector<std::unordered_set<const llvm::GlobalValue*>> defined)
      : module_(&module), groups_(std::move(groups)), defined_(std::move(defined)) {}
  llvm::Module* module_;
  std::vector<std::vector<llvm::Function*>> groups_;
  std::vector<std::unordered_set<const llvm::GlobalValue*>> defined_;
};

/// Compiles the parts of `split` and the rest of its module: the calling
/// thread writes each part's bitcode, which the other threads read into
/// contexts of their own and compile as it comes (`compilePart`); then it
/// removes the parts from the module, compiles the rest (`compileRest`) and
/// joins in on the parts left. Up to `threads` threads in all, the calling
/// one included (0: one per core). Returns the objects, the rest's first, then
/// the parts' in order; or the first error (by part), once every thread is done.
[[nodiscard]] Expected<std::vector<std::string>> compileInParts(
    ModuleSplit& split, unsigned threads, const std::function<Expected<std::string>()>& compileRest,
    const std::function<Expected<std::string>(llvm::Module& part, std::size_t index)>& compilePart);

}  // namespace memjit::jit::detail
