#include "memjit/runtime/print.h"

#include <cstring>
#include <sstream>

#include "memjit/runtime/half.h"

namespace memjit::runtime {
namespace {

template <typename T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

void printElement(std::ostream& os, ElementType t, const char* p) {
  switch (t) {
    case ElementType::I1: os << static_cast<int>(load<std::uint8_t>(p) & 1); break;
    case ElementType::I8: case ElementType::SI8: os << static_cast<int>(load<std::int8_t>(p)); break;
    case ElementType::UI8: os << static_cast<unsigned>(load<std::uint8_t>(p)); break;
    case ElementType::I16: case ElementType::SI16: os << load<std::int16_t>(p); break;
    case ElementType::UI16: os << load<std::uint16_t>(p); break;
    case ElementType::I32: case ElementType::SI32: os << load<std::int32_t>(p); break;
    case ElementType::UI32: os << load<std::uint32_t>(p); break;
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: os << load<std::int64_t>(p); break;
    case ElementType::UI64: os << load<std::uint64_t>(p); break;
    case ElementType::F16: os << float(load<f16>(p)); break;
    case ElementType::BF16: os << float(load<bf16>(p)); break;
    case ElementType::F32: os << load<float>(p); break;
    case ElementType::F64: os << load<double>(p); break;
    case ElementType::Ptr: os << load<void*>(p); break;
    case ElementType::ComplexF32: os << '(' << load<float>(p) << ',' << load<float>(p + 4) << ')'; break;
    case ElementType::ComplexF64: os << '(' << load<double>(p) << ',' << load<double>(p + 8) << ')'; break;
  }
}

void spaces(std::ostream& os, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) os << ' ';
}

// Mirrors MemRefDataPrinter<T>::print/printFirst/printLast in RunnerUtils.h.
struct DataPrinter {
  std::ostream& os;
  ElementType type;
  const char* base;
  std::int64_t rank;
  std::size_t esize;

  void print(std::int64_t dim, std::int64_t offset, const std::int64_t* sizes, const std::int64_t* strides) {
    if (dim == 0) {
      printElement(os, type, base + offset * static_cast<std::int64_t>(esize));
      return;
    }
    if (sizes[0] == 0) {
      os << "[]";
      return;
    }
    os << "[";
    print(dim - 1, offset, sizes + 1, strides + 1);
    if (sizes[0] <= 1) {
      os << "]";
      return;
    }
    os << ", ";
    if (dim > 1) os << "\n";
    for (std::int64_t i = 1; i + 1 < sizes[0]; ++i) {
      spaces(os, rank - dim + 1);
      print(dim - 1, offset + i * strides[0], sizes + 1, strides + 1);
      os << ", ";
      if (dim > 1) os << "\n";
    }
    spaces(os, rank - dim + 1);
    print(dim - 1, offset + (sizes[0] - 1) * strides[0], sizes + 1, strides + 1);
    os << "]";
  }
};

}  // namespace

void printMemref(std::ostream& os, const Buffer& b, const char* prefix) {
  if (!b.valid()) {
    os << prefix << "<empty>\n";
    return;
  }
  auto join = [&](std::span<const std::int64_t> v) {
    for (std::size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  };
  os << prefix << "base@ = " << std::hex << std::showbase
     << reinterpret_cast<std::intptr_t>(b.aligned()) << std::dec << std::noshowbase
     << " rank = " << b.rank() << " offset = " << b.offset() << " sizes = [";
  join(b.sizes());
  os << "] strides = [";
  join(b.strides());
  os << "] data = \n";
  if (b.rank() == 0) os << "[";
  DataPrinter p{os, b.elementType(), static_cast<const char*>(b.aligned()), b.rank(), b.elementSize()};
  p.print(b.rank(), b.offset(), b.sizes().data(), b.strides().data());
  if (b.rank() == 0) os << "]";
  os << '\n';
}

std::string formatMemref(const Buffer& b, const char* prefix) {
  std::ostringstream os;
  printMemref(os, b, prefix);
  return os.str();
}

}  // namespace memjit::runtime
