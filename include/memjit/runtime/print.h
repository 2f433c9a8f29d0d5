// Printing memrefs in the format of MLIR's printMemref (RunnerUtils.h), so
// output can be diffed against `mlir-cpu-runner` runs and MLIR's own tests:
//
//   Memref base@ = 0x5581... rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
//   [[1,   2,   3],
//    [4,   5,   6]]
//
// Differences, on purpose: i8/ui8 elements print as numbers (MLIR streams an
// int8_t, which prints a character), and a dim of size 0 prints `[]` (MLIR
// reads an element past the end there).
#pragma once

#include <ostream>
#include <string>

#include "memjit/runtime/buffer.h"
#include "memjit/runtime/memref.h"

namespace memjit::runtime {

/// Writes `prefix` ("Memref " or "Unranked Memref "), the metadata line, and
/// the data, ending with a newline, exactly as MLIR's printMemref does.
void printMemref(std::ostream& os, const Buffer& b, const char* prefix = "Memref ");
/// The same, as a string.
std::string formatMemref(const Buffer& b, const char* prefix = "Memref ");

template <typename T, int N>
void printMemref(std::ostream& os, const StridedMemRef<T, N>& m) {
  printMemref(os, Buffer::fromMemRef(m));
}
template <typename T>
void printMemref(std::ostream& os, const UnrankedMemRef<T>& m) {
  printMemref(os, Buffer::fromDescriptor(ElementTypeOf<T>::value, m.rank, m.descriptor),
              "Unranked Memref ");
}

}  // namespace memjit::runtime
