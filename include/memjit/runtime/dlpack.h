// DLPack interop (dlpack.h v0.6): zero-copy descriptors from a DLTensor, and
// buffers handed out as DLManagedTensor whose deleter releases the memory
// (for a function result, the callee's allocation).
#pragma once

#include <dlpack/dlpack.h>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/memref.h"

namespace memjit::runtime {

/// The element type a DLPack dtype names; lanes must be 1. kDLInt maps to
/// `si<N>`, kDLUInt to `ui<N>`, kDLOpaqueHandle (64 bits) to `!llvm.ptr`;
/// `code 6` (DLPack 0.8's kDLBool) with 8 bits to `i1`.
Expected<ElementType> elementTypeFromDLPack(DLDataType dtype);
/// The dtype for an element type (`i1` exports as kDLUInt 8, `index` as kDLInt 64).
DLDataType dlpackDataType(ElementType t) noexcept;

/// A view of a DLTensor's memory without copying. NULL strides mean row-major;
/// byte_offset is honoured; dtype, lanes and device (CPU, CUDA-host and
/// ROCm-host memory only) are checked. The tensor must outlive the buffer.
Expected<Buffer> fromDLPack(const DLTensor& tensor);

/// Takes a managed tensor: the buffer owns it and calls its deleter once, when
/// the last copy of the buffer goes. On failure nothing is taken (the caller
/// still owns `tensor`).
Expected<Buffer> adoptDLPack(DLManagedTensor* tensor);

/// Hands a buffer out as a managed tensor. The tensor keeps the buffer's
/// memory alive (sharing ownership); its deleter, called once by the
/// consumer, releases that share and frees the tensor's own bookkeeping.
Expected<DLManagedTensor*> toDLPack(const Buffer& buffer);

/// A typed descriptor over a DLTensor (checked as fromDLPack, plus element
/// type and rank).
template <typename T, int N>
Expected<StridedMemRef<T, N>> fromDLPackAs(const DLTensor& tensor) {
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, fromDLPack(tensor));
  return b.as<T, N>();
}

}  // namespace memjit::runtime
