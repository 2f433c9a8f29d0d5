// Internal: the DWARF of one function built by the kernel builder with
// FunctionOptions::debugInfo: its own compile unit (named after the
// generator's source file), a subprogram for the function and its C
// interface, a location per builder operation and variables for the inputs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>

#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugLoc.h>
#include <llvm/IR/IRBuilder.h>

#include "memjit/codegen/function_lowering.h"
#include "memjit/types.h"

namespace memjit::codegen::detail {

class FunctionDebugInfo {
 public:
  /// Describes `lowered` (its function and C interface) as defined at `loc`,
  /// and gives the module the debug-info module flags if it lacks them.
  FunctionDebugInfo(const LoweredFunction& lowered, const std::source_location& loc);

  /// `loc` in the function being built.
  llvm::DebugLoc at(const std::source_location& loc);
  /// Parameter variables for the inputs, bound to the expanded arguments
  /// that `entry`'s code packs (descriptor fields become pieces of one
  /// variable), emitted at the end of `entry`.
  void describeArguments(llvm::BasicBlock& entry);
  /// A local variable `name` holding `value` (of type `type`) from the
  /// builder's insertion point on.
  void name(llvm::IRBuilderBase& ir, llvm::Value* value, const Type& type, std::string_view name,
            const std::source_location& loc);
  /// A subprogram for `helper` (an outlined parallel body's wrapper), at the
  /// line of `where`; returns where the helper's code is, in its scope.
  llvm::DebugLoc describeHelper(llvm::Function& helper, const llvm::DebugLoc& where);
  /// Resolves what the function's subprograms collected; before verifying.
  void finish();
  llvm::DICompileUnit* compileUnit() const noexcept { return unit_; }

 private:
  llvm::DIFile* file(std::string_view path);
  llvm::DIType* elementType(ElementType t);
  llvm::DIType* typeOf(const Type& t);
  llvm::DIType* vectorOf(ElementType t, std::uint32_t lanes);

  const LoweredFunction& lowered_;
  llvm::DIBuilder builder_;
  llvm::DICompileUnit* unit_ = nullptr;
  llvm::DISubprogram* subprogram_ = nullptr;
  unsigned line_ = 0;
  std::map<std::string, llvm::DIFile*, std::less<>> files_;
  std::map<std::string, llvm::DIType*, std::less<>> types_;
};

/// Takes `unit` off the module's list of compile units (its function was removed).
void removeCompileUnit(llvm::Module& module, llvm::DICompileUnit* unit);

}  // namespace memjit::codegen::detail
