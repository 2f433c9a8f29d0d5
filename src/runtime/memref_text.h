// The layout of MLIR's printMemref text, shared by memjit's own printer
// (print.cpp, any element type through a Buffer) and the runner utilities
// (runner_utils/, MLIR's exact element formatting): the metadata line, and
// the nested brackets with their separators and indentation.
//
// One difference from MLIR, in both: a dimension of size 0 prints `[]`.
// MLIR's printer still prints the first element of an empty dimension there
// (it reads past the end of the view, so what appears is undefined).
#pragma once

#include <cstdint>
#include <ostream>

namespace memjit::runtime::detail {

/// "base@ = 0x... rank = R offset = O sizes = [a, b] strides = [c, d]" with
/// `aligned` in hex as MLIR prints it (a null pointer prints as "0").
void writeMemrefMetadata(std::ostream& os, const void* aligned, std::int64_t rank, std::int64_t offset,
                         const std::int64_t* sizes, const std::int64_t* strides);

/// The data of a view of rank `rank`, with `writeElement(os, linearOffset)`
/// writing one element: for rank >= 1 the nested brackets only; for rank 0
/// just the element (the caller adds MLIR's surrounding `[` `]`).
template <typename WriteElement>
void writeMemrefData(std::ostream& os, std::int64_t rank, std::int64_t offset, const std::int64_t* sizes,
                     const std::int64_t* strides, WriteElement&& writeElement) {
  struct Walker {
    std::ostream& os;
    std::int64_t rank;
    WriteElement& writeElement;

    void indent(std::int64_t dim) const {
      for (std::int64_t i = 0; i < rank - dim + 1; ++i) os << ' ';
    }
    void walk(std::int64_t dim, std::int64_t offset, const std::int64_t* sizes, const std::int64_t* strides) {
      if (dim == 0) {
        writeElement(os, offset);
        return;
      }
      if (sizes[0] <= 0) {
        os << "[]";
        return;
      }
      os << '[';
      // Elements are separated by ", ", rows of a higher dimension also by a
      // newline; every element after the first is indented by its depth.
      for (std::int64_t i = 0; i < sizes[0]; ++i) {
        if (i > 0) {
          os << ", ";
          if (dim > 1) os << '\n';
          indent(dim);
        }
        walk(dim - 1, offset + i * strides[0], sizes + 1, strides + 1);
      }
      os << ']';
    }
  };
  Walker{os, rank, writeElement}.walk(rank, offset, sizes, strides);
}

}  // namespace memjit::runtime::detail
