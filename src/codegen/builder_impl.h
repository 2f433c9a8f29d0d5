// Internal: the state of a FunctionBuilder, shared by builder*.cpp.
#pragma once

#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/ValueHandle.h>

#include "debug_info.h"
#include "temporaries.h"
#include "memjit/codegen/builder.h"

namespace memjit::codegen {

namespace detail {
struct ProofNest;  // loop_proofs.h
}  // namespace detail

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
  // The loop nest being built whose checks may be proven (loop_proofs.h).
  std::shared_ptr<detail::ProofNest> proofNest;
  // FunctionOptions::debugInfo (null when off), and whether an operation is
  // being built (operations it builds through others keep its location).
  std::unique_ptr<detail::FunctionDebugInfo> debug;
  bool inOperation = false;
  // Where the user called the operation being built (null outside one): what
  // a builder error names, with or without debug info.
  const std::source_location* operationLoc = nullptr;

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

namespace detail {

// What every builder operation does first: emit its instructions at the
// caller's `loc` (see "Source locations" in builder.h). Only the outermost
// operation sets a location (operations one builds through others, such as
// forLoop's overloads or ceildiv through div, keep it); nothing at all
// without debug info. New operations need nothing else:
//   Value FunctionBuilder::op(const Value& a, std::source_location loc) {
//     const detail::OpLocation at(*this, loc);  // first statement, always
//     ...
//   }
// Calls of user callbacks inside an operation go through UserCode below.
class OpLocation {
 public:
  OpLocation(FunctionBuilder& b, const std::source_location& loc) {
    BuilderOps::Impl& I = BuilderOps::impl(b);
    if (I.inOperation) return;
    impl_ = &I;
    savedLoc_ = I.operationLoc;
    I.operationLoc = &loc;
    I.inOperation = true;
    if (!I.debug) return;
    saved_ = I.ir.getCurrentDebugLocation();
    I.ir.SetCurrentDebugLocation(I.debug->at(loc));
  }
  /// Whether this is the outermost operation, the one the user called.
  bool outermost() const noexcept { return impl_ != nullptr; }
  ~OpLocation() {
    if (!impl_) return;
    if (impl_->debug) impl_->ir.SetCurrentDebugLocation(saved_);
    impl_->operationLoc = savedLoc_;
    impl_->inOperation = false;
  }
  OpLocation(const OpLocation&) = delete;
  OpLocation& operator=(const OpLocation&) = delete;

 private:
  BuilderOps::Impl* impl_ = nullptr;
  const std::source_location* savedLoc_ = nullptr;
  llvm::DebugLoc saved_;
};

// Around the call of a user's callback (a loop body, a branch, a combiner)
// in the operation the user called (`at` outermost): the operations the
// callback builds are the user's, with their own lines. In an operation that
// another one builds, callbacks are that operation's own code: no effect.
class UserCode {
 public:
  UserCode(FunctionBuilder& b, const OpLocation& at) : impl_(at.outermost() ? &BuilderOps::impl(b) : nullptr) {
    if (impl_) impl_->inOperation = false;
  }
  ~UserCode() {
    if (impl_) impl_->inOperation = true;
  }
  UserCode(const UserCode&) = delete;
  UserCode& operator=(const UserCode&) = delete;

 private:
  BuilderOps::Impl* impl_;
};

}  // namespace detail

}  // namespace memjit::codegen
