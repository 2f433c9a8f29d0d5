// NumPy's `.npy` format (numpy.lib.format): reading a file into a Buffer and
// writing a Buffer to a file, with no Python and no NumPy.
//
//   auto x = memjit::runtime::readNpy("x.npy");           // Buffer, owns its memory
//   fn.invoke({*x});
//   cantFail(memjit::runtime::writeNpy("y.npy", result));  // C order, little endian
//
// Reading takes header versions 1.0, 2.0 and 3.0 (3.0's header is UTF-8; the
// fields memjit reads are ASCII either way), both byte orders (big-endian data
// is byte-swapped, each component of a complex separately) and both orders: a
// Fortran-order array becomes a column-major strided Buffer over the data as
// stored (no transpose; Buffer::copy() or the invoker makes it row-major when
// a function needs that). The data lands in 64-byte aligned memory.
//
// Element types (descr -> memjit; writing uses the same spellings, `<` order):
//   |b1 -> i1      |i1 <i2 <i4 <i8 -> si8..si64   |u1 <u2 <u4 <u8 -> ui8..ui64
//   <f2 -> f16     <f4 -> f32    <f8 -> f64       <c8 -> complex<f32>   <c16 -> complex<f64>
//   <V2, |V2 or 'bfloat16' -> bf16
// NumPy has no bfloat16; ml_dtypes' bfloat16 is saved by np.save as '<V2'
// (a 2-byte void), so memjit reads any 2-byte void as bf16 and writes bf16 as
// '<V2' (load it in Python with `np.load(f).view(ml_dtypes.bfloat16)`).
// Signless integers (i8..i64) and `index` are written as signed (`<i*`); a
// signed or unsigned Buffer passes for a signless parameter of the same width.
// `!llvm.ptr` has no npy spelling (Unsupported).
//
// Every failure is an Error naming the file and what is wrong: IoError when
// the file cannot be read or written, ParseError for a bad magic string,
// truncated or malformed header, or data shorter or longer than the header
// says; Unsupported for a version, dtype or structured array memjit does not
// read; InvalidArgument when shape times item size overflows.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// What an npy header says.
struct NpyHeader {
  std::uint8_t majorVersion = 1, minorVersion = 0;
  ElementType element = ElementType::F32;
  bool bigEndian = false;     ///< the data needs byte-swapping on this (little-endian) host
  bool fortranOrder = false;  ///< column-major data
  std::vector<std::int64_t> shape;
  std::size_t dataOffset = 0;  ///< bytes before the data (preamble and header)
  std::size_t dataBytes = 0;   ///< product of shape times item size
};

/// The element type an npy `descr` names (see the table above), and whether
/// its data is big-endian. `what` names the file in messages.
Expected<ElementType> elementTypeFromNpyDescr(std::string_view descr, bool& bigEndian, std::string_view what = "npy");
/// The `descr` memjit writes for `t` ("<f4", "|b1", "<V2" for bf16, ...).
Expected<std::string> npyDescr(ElementType t);

/// Parses the preamble and header at the start of `bytes` (the whole file
/// or at least its first dataOffset bytes). `what` names the file in messages.
Expected<NpyHeader> parseNpyHeader(std::span<const unsigned char> bytes, std::string_view what = "npy");

/// The array in the npy image `bytes` (a whole file's content).
Expected<Buffer> decodeNpy(std::span<const unsigned char> bytes, std::string_view what = "npy");
/// The array in the file at `path`; reads the header first, so a header that
/// claims more data than the file holds fails before any allocation.
Expected<Buffer> readNpy(const std::string& path);

/// An npy image of `buffer`: version 1.0 (2.0 when the header needs more than
/// 65535 bytes), C order, little-endian, data 64-byte aligned in the file.
/// The buffer may have any strides; the elements are written in row-major order.
Expected<std::vector<unsigned char>> encodeNpy(const Buffer& buffer);
/// Writes encodeNpy(buffer) to `path`.
Error writeNpy(const std::string& path, const Buffer& buffer);

}  // namespace memjit::runtime
