// The buffer-description oracle (IREE's function-signature design, "Memory
// layout"; docs/runtime.md): given the memref type a function declares and
// the description of a buffer a caller holds,
// decide whether the buffer can be passed as is, after rebasing its
// descriptor (moving the offset into the aligned pointer, no copy), after a
// copy into a compatible layout, or not at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// What a caller's buffer looks like (after Python's Py_buffer, as IREE's design suggests).
/// Strides and offset are in elements, as in a memref descriptor.
struct BufferDescription {
  ElementType elementType = ElementType::F32;
  /// Bytes the elements take once packed contiguously.
  std::size_t len = 0;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;

  /// The description of an existing buffer.
  static BufferDescription of(const Buffer& b);
  /// A packed row-major description of `shape`.
  static BufferDescription rowMajor(ElementType t, std::vector<std::int64_t> shape);
  std::size_t rank() const noexcept { return shape.size(); }
};

/// How a buffer can be used for a parameter.
enum class Usability {
  AsIs,    ///< pass the descriptor unchanged
  Rebase,  ///< same memory, offset folded into the aligned pointer (`target.offset` is the new offset)
  Copy,    ///< copy into a buffer laid out as `target` (and back after the call)
};

/// The oracle's answer for a usable buffer.
struct OracleDecision {
  Usability usability = Usability::AsIs;
  /// The description to pass: the given one (AsIs), with the new offset
  /// (Rebase), or the layout to copy into (Copy).
  BufferDescription target;
  /// Why a rebase or copy is needed ("dim 1 has stride 4, the layout needs 1").
  std::string reason;
};

/// Decides how `given` can be passed where `required` (a ranked or unranked
/// memref type) is declared. An Error with code TypeMismatch names the
/// reason when the buffer cannot be used at all: element type, rank or a
/// static dim differs, or no packed layout satisfies the declared strides.
Expected<OracleDecision> bufferDescriptionOracle(const Type& required, const BufferDescription& given);

/// The raw ABI text of a memref type, `Buffer<float32[?x128x64]>`, used on the
/// expected side of diagnostics (with ` strided<...>` appended for explicit layouts).
std::string describeExpected(const Type& required);

}  // namespace memjit::runtime
