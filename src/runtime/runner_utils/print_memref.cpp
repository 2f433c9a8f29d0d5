// printMemref*, printMemrefShape* and printMemrefVector4x4xf32 of MLIR's
// mlir_runner_utils: std::cout, the layout of memref_text.h.
#include <iostream>

#include "../memref_text.h"
#include "view.h"

namespace memjit::runtime::runner {
namespace {

constexpr const char* kRanked = "Memref ";
constexpr const char* kUnranked = "Unranked Memref ";

template <typename T>
void writeHead(const char* prefix, const View<T>& v) {
  std::cout << prefix;
  detail::writeMemrefMetadata(std::cout, v.data, v.rank, v.offset, v.sizes, v.strides);
}

// The metadata line alone, ended but not flushed.
template <typename T>
void printShape(const char* prefix, const View<T>& v) {
  writeHead(prefix, v);
  std::cout << '\n';
}

template <typename T>
void print(const char* prefix, const View<T>& v) {
  std::ostream& os = std::cout;
  writeHead(prefix, v);
  os << " data = \n";
  if (v.rank == 0) os << '[';
  detail::writeMemrefData(os, v.rank, v.offset, v.sizes, v.strides,
                          [&](std::ostream& out, std::int64_t offset) { writeElement(out, v.data[offset]); });
  if (v.rank == 0) os << ']';
  os << '\n' << std::flush;
}

void writeRow(std::ostream& os, const std::array<float, 4>& r) {
  os << '(' << r[0] << ", " << r[1] << ", " << r[2] << ", " << r[3] << ')';
}

}  // namespace

void writeElement(std::ostream& os, const Vector4x4F32& v) {
  os << '(';
  writeRow(os, v[0]);
  os << ", ";
  for (int i = 1; i < 3; ++i) {
    os << "  ";
    writeRow(os, v[static_cast<std::size_t>(i)]);
    os << ", ";
  }
  os << ' ';
  writeRow(os, v[3]);
  os << ')';
}

}  // namespace memjit::runtime::runner

// The C symbols: one line each over print and printShape.
using namespace memjit::runtime;
using namespace memjit::runtime::runner;

extern "C" {

void _mlir_ciface_printMemrefShapeI8(UnrankedMemRef<std::int8_t>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeI32(UnrankedMemRef<std::int32_t>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeI64(UnrankedMemRef<std::int64_t>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeF32(UnrankedMemRef<float>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeF64(UnrankedMemRef<double>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeInd(UnrankedMemRef<Index>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeC32(UnrankedMemRef<C32>* m) { printShape(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefShapeC64(UnrankedMemRef<C64>* m) { printShape(kUnranked, viewOf(m)); }

void _mlir_ciface_printMemrefI8(UnrankedMemRef<std::int8_t>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefI16(UnrankedMemRef<std::int16_t>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefI32(UnrankedMemRef<std::int32_t>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefI64(UnrankedMemRef<std::int64_t>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefF16(UnrankedMemRef<memjit::f16>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefBF16(UnrankedMemRef<memjit::bf16>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefF32(UnrankedMemRef<float>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefF64(UnrankedMemRef<double>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefInd(UnrankedMemRef<Index>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefC32(UnrankedMemRef<C32>* m) { print(kUnranked, viewOf(m)); }
void _mlir_ciface_printMemrefC64(UnrankedMemRef<C64>* m) { print(kUnranked, viewOf(m)); }

void printMemrefI32(std::int64_t rank, void* d) { print(kUnranked, viewOf<std::int32_t>(rank, d)); }
void printMemrefI64(std::int64_t rank, void* d) { print(kUnranked, viewOf<std::int64_t>(rank, d)); }
void printMemrefF32(std::int64_t rank, void* d) { print(kUnranked, viewOf<float>(rank, d)); }
void printMemrefF64(std::int64_t rank, void* d) { print(kUnranked, viewOf<double>(rank, d)); }
void printMemrefInd(std::int64_t rank, void* d) { print(kUnranked, viewOf<Index>(rank, d)); }
void printMemrefC32(std::int64_t rank, void* d) { print(kUnranked, viewOf<C32>(rank, d)); }
void printMemrefC64(std::int64_t rank, void* d) { print(kUnranked, viewOf<C64>(rank, d)); }

void _mlir_ciface_printMemref0dF32(StridedMemRef<float, 0>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dF32(StridedMemRef<float, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref2dF32(StridedMemRef<float, 2>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref3dF32(StridedMemRef<float, 3>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref4dF32(StridedMemRef<float, 4>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dI8(StridedMemRef<std::int8_t, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dI32(StridedMemRef<std::int32_t, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dI64(StridedMemRef<std::int64_t, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dF64(StridedMemRef<double, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dInd(StridedMemRef<Index, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dC32(StridedMemRef<C32, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemref1dC64(StridedMemRef<C64, 1>* m) { print(kRanked, viewOf(m)); }
void _mlir_ciface_printMemrefVector4x4xf32(StridedMemRef<memjit::runtime::Vector4x4F32, 2>* m) {
  print(kRanked, viewOf(m));
}

}  // extern "C"
