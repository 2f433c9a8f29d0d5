// Internal: the state of a FunctionBuilder, shared by builder*.cpp.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/ValueHandle.h>

#include "memjit/codegen/builder.h"

namespace memjit::codegen {

struct FunctionBuilder::Impl {
  Module* module = nullptr;
  std::string name;
  LoweredFunction lowered;
  std::unique_ptr<llvm::LLVMContext> ownedContext;  // only for a builder that failed at once
  llvm::IRBuilder<> ir;
  std::vector<Value> args;
  Error error;
  bool returned = false;
  bool finished = false;
  // One per open loop body: whether it emitted stack allocations, so its
  // iterations get a stacksave/stackrestore scope.
  struct Scope {
    bool allocates = false;
    bool callsMath = false;  // a math function call (see LoopOptions::interleave)
  };
  std::vector<Scope> scopes;
  int depth = 0;  // nesting of loops and branches
  FastMath fastMath = FastMath::None;  // of the operations built from here on
  // Functions made for this one (outlined parallel bodies): removed with it
  // when it fails. Null once LLVM erased them.
  std::vector<llvm::WeakVH> helpers;
  // Checked mode (builder_checks.h): whether operations emit checks now, the
  // blocks a failed check leaves to (one per open parallel chunk, innermost
  // last; empty: the function's early return), and constants made once.
  bool checked = false;
  std::vector<llvm::BasicBlock*> failTargets;
  llvm::BasicBlock* earlyReturn = nullptr;
  std::map<std::string, llvm::Constant*, std::less<>> checkStrings;

  explicit Impl(llvm::LLVMContext* ctx)
      : ownedContext(ctx ? nullptr : new llvm::LLVMContext), ir(ctx ? *ctx : *ownedContext) {}
  const LoweringOptions& opts() const { return lowered.options.lowering; }
};

// Member access for the helpers in builder*.cpp.
struct BuilderOps {
  using Impl = FunctionBuilder::Impl;
  static FunctionBuilder::Impl& impl(FunctionBuilder& b) { return *b.impl_; }
  static Value make(FunctionBuilder& b, llvm::Value* v, Type t) { return Value(&b, v, std::move(t)); }
};

}  // namespace memjit::codegen
