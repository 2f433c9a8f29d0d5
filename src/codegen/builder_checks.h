// Internal: checked mode's code (FunctionOptions::checked). Each check is a
// branch to a cold block that puts the operands into memjit_check_scratch,
// calls memjit_check_report (memjit::runtime, memjit/runtime/checks.h) and
// leaves: the function returns zero results, or inside a parallel chunk the
// chunk ends, and the code after the parallel loop (or after a call) sees
// the pending failure and leaves in turn. Unchecked functions get none of this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "builder_impl.h"

namespace llvm {
class BasicBlock;
class Value;
}  // namespace llvm

namespace memjit::codegen::detail {

/// Whether operations built now emit checks.
bool checking(FunctionBuilder& self) noexcept;

/// Continues at a new block when `ok` (i1) holds; otherwise reports `kind`
/// (a memjit_check_kind) for operation `op` on `type` with the values and
/// bounds (index or integer values, sign-extended to i64) and leaves. Emits
/// nothing when `ok` is the constant true.
void emitCheck(FunctionBuilder& self, llvm::Value* ok, int kind, std::string_view op, std::string_view type,
               const std::vector<llvm::Value*>& values, const std::vector<llvm::Value*>& bounds = {});

/// Leaves when a failure is pending (after a parallel loop or a call, whose
/// callee reported it).
void emitPendingCheck(FunctionBuilder& self);

/// Division and remainder operands: by zero, and for signed ones INT_MIN / -1.
void checkDivision(FunctionBuilder& self, std::string_view op, bool isSigned, bool isRemainder, llvm::Value* a,
                   llvm::Value* b);

// --- memref checks (builder_memref_checks.cpp); all values are index-typed ---

/// How a report names memref `m`: "argument #1 'b' (memref<?xf32>)" for
/// an argument of the function (its name from FunctionOptions::
/// argumentNames, when given), else its type.
std::string memrefLabel(FunctionBuilder& self, const Value& m);

/// load/store: the first `checkedDims` indices (all by default) within
/// [0, size); the report prints every index and size.
void checkIndices(FunctionBuilder& self, std::string_view op, std::string_view type,
                  const std::vector<llvm::Value*>& indices, const std::vector<llvm::Value*>& sizes,
                  std::size_t checkedDims = SIZE_MAX);

/// Operands of one operation whose sizes must agree (a kernel's matrices):
/// reports `op` (which says what must agree) with every operand's `names`
/// and `sizes` (`ranks[i]` sizes each) unless `ok` holds.
void checkShapes(FunctionBuilder& self, llvm::Value* ok, std::string_view op, const std::vector<std::string>& names,
                 const std::vector<llvm::Value*>& sizes, const std::vector<std::int64_t>& ranks);

/// subview: per dim, offset, size and stride not negative and, for a
/// nonempty dim, offset + (size - 1) * stride below the source's size, without
/// overflow. Dims whose flag in `known` is set were proven at build time.
void checkSubview(FunctionBuilder& self, std::string_view type, const std::vector<llvm::Value*>& offsets,
                  const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& strides,
                  const std::vector<llvm::Value*>& sourceSizes, const std::vector<bool>& known);

/// The elements a memref reaches, relative to its aligned pointer: the
/// smallest and largest linear position, or empty.
struct Extent {
  llvm::Value* lo = nullptr;
  llvm::Value* hi = nullptr;
  llvm::Value* empty = nullptr;  ///< i1
};
/// Of a ranked memref from its offset, sizes and strides.
Extent rankedExtent(FunctionBuilder& self, llvm::Value* offset, const std::vector<llvm::Value*>& sizes,
                    const std::vector<llvm::Value*>& strides);
/// Of an unranked memref `{rank, descriptor}`, walking its sizes and strides.
Extent unrankedExtent(FunctionBuilder& self, llvm::Value* unranked);

/// reinterpret_cast: sizes not negative and, for a nonempty result, the
/// elements it reaches (computed without overflow) within `source`.
void checkReinterpretCast(FunctionBuilder& self, std::string_view types, const Extent& source, llvm::Value* offset,
                          const std::vector<llvm::Value*>& sizes, const std::vector<llvm::Value*>& strides);

/// alloc: no negative size, and size * ... * elementBytes + padding within the
/// index type. `dynamic` flags the sizes given at run time.
void checkAlloc(FunctionBuilder& self, std::string_view type, const std::vector<llvm::Value*>& sizes,
                const std::vector<bool>& dynamic, std::uint64_t elementBytes, std::uint64_t padding);

/// While alive, failed checks inside the parallel chunk being built leave to `chunkEnd`.
class ChunkFailTarget {
 public:
  ChunkFailTarget(FunctionBuilder& self, llvm::BasicBlock* chunkEnd);
  ~ChunkFailTarget();
  ChunkFailTarget(const ChunkFailTarget&) = delete;
  ChunkFailTarget& operator=(const ChunkFailTarget&) = delete;

 private:
  BuilderOps::Impl& impl_;
};

/// While alive, no checks are emitted: for memjit's own arithmetic whose
/// operands are valid by construction (a parallel loop's row split).
class Unchecked {
 public:
  explicit Unchecked(FunctionBuilder& self) noexcept;
  ~Unchecked();
  Unchecked(const Unchecked&) = delete;
  Unchecked& operator=(const Unchecked&) = delete;

 private:
  BuilderOps::Impl& impl_;
  bool saved_;
};

}  // namespace memjit::codegen::detail
