// Internal: the LLVM API calls of the codegen layer that differ between the
// LLVM versions memjit builds with (19 to 22; 19 and 22 are tested), as
// jit/llvm_compat.h is the jit layer's (codegen cannot include jit's).
//
// Each function asks the compiler which overload this LLVM has (a
// requires-expression on a template parameter) instead of comparing
// LLVM_VERSION_MAJOR, so it is right for the untested 20 and 21 too.
#pragma once

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/DIBuilder.h>

namespace memjit::codegen::llvm_compat {

/// Inserts a dbg.value of `value` for `variable` before `at`. LLVM 22 takes
/// an InsertPosition, built from an iterator (its Instruction* constructor
/// is deprecated); LLVM 19 takes the Instruction* itself.
template <class Builder = llvm::DIBuilder>
void insertDbgValueBefore(Builder& builder, llvm::Value* value, llvm::DILocalVariable* variable,
                          llvm::DIExpression* expression, const llvm::DILocation* location,
                          llvm::BasicBlock::iterator at) {
  if constexpr (requires { builder.insertDbgValueIntrinsic(value, variable, expression, location, at); })
    builder.insertDbgValueIntrinsic(value, variable, expression, location, at);
  else
    builder.insertDbgValueIntrinsic(value, variable, expression, location, &*at);
}

}  // namespace memjit::codegen::llvm_compat
