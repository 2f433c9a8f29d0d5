#include "memjit/runtime/print.h"

#include <cstring>
#include <sstream>

#include "memjit/runtime/half.h"
#include "memref_text.h"

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

}  // namespace

void printMemref(std::ostream& os, const Buffer& b, const char* prefix) {
  if (!b.valid()) {
    os << prefix << "<empty>\n";
    return;
  }
  os << prefix;
  detail::writeMemrefMetadata(os, b.aligned(), b.rank(), b.offset(), b.sizes().data(), b.strides().data());
  os << " data = \n";
  if (b.rank() == 0) os << "[";
  const auto* base = static_cast<const char*>(b.aligned());
  const auto esize = static_cast<std::int64_t>(b.elementSize());
  detail::writeMemrefData(os, b.rank(), b.offset(), b.sizes().data(), b.strides().data(),
                          [&](std::ostream& out, std::int64_t offset) {
                            printElement(out, b.elementType(), base + offset * esize);
                          });
  if (b.rank() == 0) os << "]";
  os << '\n';
}

void detail::writeMemrefMetadata(std::ostream& os, const void* aligned, std::int64_t rank, std::int64_t offset,
                                 const std::int64_t* sizes, const std::int64_t* strides) {
  auto join = [&](const std::int64_t* v) {
    for (std::int64_t i = 0; i < rank; ++i) os << (i ? ", " : "") << v[i];
  };
  os << "base@ = " << std::hex << std::showbase << reinterpret_cast<std::intptr_t>(aligned) << std::dec
     << std::noshowbase << " rank = " << rank << " offset = " << offset << " sizes = [";
  join(sizes);
  os << "] strides = [";
  join(strides);
  os << "]";
}

std::string formatMemref(const Buffer& b, const char* prefix) {
  std::ostringstream os;
  printMemref(os, b, prefix);
  return os.str();
}

}  // namespace memjit::runtime
