// NumPy's .npy format: the header (a Python dict literal) parsed by hand, the
// data copied into a 64-byte aligned Buffer and byte-swapped when big-endian.
#include "memjit/runtime/npy.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

namespace memjit::runtime {
namespace {

// npy data is written little-endian and read by swapping only big-endian
// files: right on every host memjit targets (x86-64, AArch64 Linux).
static_assert(std::endian::native == std::endian::little, "npy.cpp assumes a little-endian host");

constexpr unsigned char kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kMagicSize = sizeof kMagic;
constexpr std::size_t kDataAlignment = 64;  // what NumPy pads the header to

Error parseError(std::string_view what, const std::string& message) {
  return Error(ErrorCode::ParseError, std::string(what) + ": " + message);
}

std::string shapeText(std::span<const std::int64_t> shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// as Python's repr writes it, with any spacing and key order. Only the three
// keys NumPy defines, each once; a list descr (a structured dtype) is refused.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  Error parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!eat('{')) return error("header does not start with '{'");
    for (;;) {
      skipSpace();
      if (eat('}')) break;
      MEMJIT_ASSIGN_OR_RETURN(std::string key, string("a key"));
      skipSpace();
      if (!eat(':')) return error("expected ':' after key '" + key + "'");
      skipSpace();
      bool* seen = key == "descr" ? &haveDescr : key == "fortran_order" ? &haveFortran : key == "shape" ? &haveShape : nullptr;
      if (!seen) return error("unknown key '" + key + "' (an npy header has 'descr', 'fortran_order' and 'shape')");
      if (*seen) return error("key '" + key + "' appears twice");
      *seen = true;
      if (key == "descr") {
        if (peek() == '[')
          return Error(ErrorCode::Unsupported, std::string(what_) + ": structured dtypes (a list descr) are not supported");
        MEMJIT_ASSIGN_OR_RETURN(descr, string("the descr"));
      } else if (key == "fortran_order") {
        if (eatWord("True")) fortran = true;
        else if (eatWord("False")) fortran = false;
        else return error("fortran_order must be True or False");
      } else {
        MEMJIT_TRY(tuple(shape));
      }
      skipSpace();
      if (eat(',')) continue;
      skipSpace();
      if (eat('}')) break;
      return error("expected ',' or '}' after the value of '" + key + "'");
    }
    skipSpace();
    if (pos_ != text_.size()) return error("unexpected text after the header dict");
    if (!haveDescr) return error("the header has no 'descr'");
    if (!haveFortran) return error("the header has no 'fortran_order'");
    if (!haveShape) return error("the header has no 'shape'");
    return Error::success();
  }

 private:
  Error error(const std::string& message) const {
    return Error(ErrorCode::ParseError, std::string(what_) + ": bad header at byte " + std::to_string(pos_) + ": " +
                                            message);
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool eatWord(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  Expected<std::string> string(const char* what) {
    char quote = peek();
    if (quote != '\'' && quote != '"') return error("expected a quoted string as " + std::string(what));
    ++pos_;
    std::size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return error("unterminated string");
    std::string s(text_.substr(pos_, end - pos_));
    if (s.find('\\') != std::string::npos) return error("escapes in strings are not supported");
    pos_ = end + 1;
    return s;
  }
  Error tuple(std::vector<std::int64_t>& shape) {
    if (!eat('(')) return error("shape must be a tuple, e.g. (3, 4)");
    shape.clear();
    for (;;) {
      skipSpace();
      if (eat(')')) return Error::success();
      if (peek() < '0' || peek() > '9') return error("expected a non-negative integer in the shape");
      std::int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        int digit = peek() - '0';
        if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10) return error("a dim of the shape overflows int64");
        v = v * 10 + digit;
        ++pos_;
      }
      eat('L');  // Python 2's long suffix, which old files carry
      shape.push_back(v);
      skipSpace();
      if (eat(',')) continue;
      skipSpace();
      if (eat(')')) {
        return Error::success();
      }
      return error("expected ',' or ')' in the shape");
    }
  }

  std::string_view text_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

std::size_t componentSize(ElementType t) { return storageSize(componentType(t)); }

void byteSwap(void* data, std::size_t bytes, std::size_t width) {
  auto* p = static_cast<unsigned char*>(data);
  if (width < 2) return;
  for (std::size_t i = 0; i + width <= bytes; i += width) std::reverse(p + i, p + i + width);
}

Error checkDataSize(const NpyHeader& h, std::size_t available, std::string_view what) {
  std::string need = std::to_string(h.dataBytes) + " bytes of data for shape " + shapeText(h.shape) + " of " +
                     std::string(spelling(h.element));
  if (available < h.dataBytes)
    return parseError(what, "the file ends after " + std::to_string(available) + " bytes of data; the header needs " + need);
  if (available > h.dataBytes)
    return parseError(what, "the file has " + std::to_string(available - h.dataBytes) +
                                " bytes after the data; the header needs " + need);
  return Error::success();
}

// A Buffer of the header's shape and order; zero-filled until the data goes in.
Expected<Buffer> allocateFor(const NpyHeader& h) {
  std::int64_t count = 1;
  for (auto d : h.shape) count *= d;  // no overflow: dataBytes was computed checked
  if (!h.fortranOrder || h.shape.size() < 2) return Buffer::allocate(h.element, h.shape);
  MEMJIT_ASSIGN_OR_RETURN(Buffer flat, Buffer::allocate(h.element, {count}));
  std::vector<std::int64_t> strides(h.shape.size());
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < h.shape.size(); ++i) {
    strides[i] = stride;
    stride *= h.shape[i];
  }
  return Buffer::fromParts(h.element, flat.allocated(), flat.aligned(), 0, h.shape, strides, flat.owner());
}

// Byte order and booleans, once the data is in.
Error finish(const NpyHeader& h, const Buffer& b, std::string_view what) {
  if (h.bigEndian) byteSwap(b.data(), h.dataBytes, componentSize(h.element));
  if (h.element == ElementType::I1) {
    const auto* p = static_cast<const unsigned char*>(b.data());
    for (std::size_t i = 0; i < h.dataBytes; ++i)
      if (p[i] > 1)
        return parseError(what, "bool element " + std::to_string(i) + " is " + std::to_string(p[i]) + " (not 0 or 1)");
  }
  return Error::success();
}

std::uint32_t littleEndian(std::span<const unsigned char> b, std::size_t at, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= static_cast<std::uint32_t>(b[at + i]) << (8 * i);
  return v;
}

}  // namespace

Expected<ElementType> elementTypeFromNpyDescr(std::string_view descr, bool& bigEndian, std::string_view what) {
  bigEndian = false;
  auto unsupported = [&] {
    return Error(ErrorCode::Unsupported, std::string(what) + ": dtype '" + std::string(descr) +
                                             "' is not supported (memjit reads b1, i1..i8, u1..u8, f2, f4, f8, c8, "
                                             "c16 and V2 as bfloat16)");
  };
  if (descr == "bfloat16") return ElementType::BF16;
  if (descr.size() < 3) return unsupported();
  char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return unsupported();
  char kind = descr[1];
  std::string_view size = descr.substr(2);
  if (size.find_first_not_of("0123456789") != std::string_view::npos) return unsupported();
  std::optional<ElementType> t;
  if (kind == 'b' && size == "1") t = ElementType::I1;
  if (kind == 'i' && size == "1") t = ElementType::SI8;
  if (kind == 'i' && size == "2") t = ElementType::SI16;
  if (kind == 'i' && size == "4") t = ElementType::SI32;
  if (kind == 'i' && size == "8") t = ElementType::SI64;
  if (kind == 'u' && size == "1") t = ElementType::UI8;
  if (kind == 'u' && size == "2") t = ElementType::UI16;
  if (kind == 'u' && size == "4") t = ElementType::UI32;
  if (kind == 'u' && size == "8") t = ElementType::UI64;
  if (kind == 'f' && size == "2") t = ElementType::F16;
  if (kind == 'f' && size == "4") t = ElementType::F32;
  if (kind == 'f' && size == "8") t = ElementType::F64;
  if (kind == 'c' && size == "8") t = ElementType::ComplexF32;
  if (kind == 'c' && size == "16") t = ElementType::ComplexF64;
  if (kind == 'V' && size == "2") t = ElementType::BF16;
  if (!t) return unsupported();
  bigEndian = order == '>' && storageSize(*t) > 1;
  return *t;
}

Expected<std::string> npyDescr(ElementType t) {
  switch (t) {
    case ElementType::I1: return std::string("|b1");
    case ElementType::I8: case ElementType::SI8: return std::string("|i1");
    case ElementType::UI8: return std::string("|u1");
    case ElementType::I16: case ElementType::SI16: return std::string("<i2");
    case ElementType::UI16: return std::string("<u2");
    case ElementType::I32: case ElementType::SI32: return std::string("<i4");
    case ElementType::UI32: return std::string("<u4");
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: return std::string("<i8");
    case ElementType::UI64: return std::string("<u8");
    case ElementType::F16: return std::string("<f2");
    case ElementType::BF16: return std::string("<V2");
    case ElementType::F32: return std::string("<f4");
    case ElementType::F64: return std::string("<f8");
    case ElementType::ComplexF32: return std::string("<c8");
    case ElementType::ComplexF64: return std::string("<c16");
    case ElementType::Ptr: break;
  }
  return Error(ErrorCode::Unsupported, "npy: element type " + std::string(spelling(t)) + " has no npy dtype");
}

Expected<NpyHeader> parseNpyHeader(std::span<const unsigned char> bytes, std::string_view what) {
  if (bytes.size() < kMagicSize + 2 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return parseError(what, "not an npy file (it does not start with \\x93NUMPY)");
  NpyHeader h;
  h.majorVersion = bytes[6];
  h.minorVersion = bytes[7];
  if (h.majorVersion < 1 || h.majorVersion > 3 || h.minorVersion != 0)
    return Error(ErrorCode::Unsupported, std::string(what) + ": npy version " + std::to_string(h.majorVersion) + "." +
                                             std::to_string(h.minorVersion) + " is not supported (1.0, 2.0 and 3.0 are)");
  const std::size_t lengthBytes = h.majorVersion == 1 ? 2 : 4;
  const std::size_t preamble = kMagicSize + 2 + lengthBytes;
  if (bytes.size() < preamble)
    return parseError(what, "the file ends inside the header length (" + std::to_string(bytes.size()) + " bytes)");
  const std::size_t headerLength = littleEndian(bytes, kMagicSize + 2, lengthBytes);
  h.dataOffset = preamble + headerLength;
  if (bytes.size() < h.dataOffset)
    return parseError(what, "the file ends inside the header: it needs " + std::to_string(h.dataOffset) +
                                " bytes, the file has " + std::to_string(bytes.size()));
  std::string_view text(reinterpret_cast<const char*>(bytes.data() + preamble), headerLength);
  std::string descr;
  MEMJIT_TRY(HeaderParser(text, what).parse(descr, h.fortranOrder, h.shape));
  MEMJIT_ASSIGN_OR_RETURN(h.element, elementTypeFromNpyDescr(descr, h.bigEndian, what));
  // The nonzero dims count too: an empty array's strides are their products.
  std::size_t total = storageSize(h.element);
  bool empty = false;
  const std::size_t limit = static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max());
  for (std::int64_t d : h.shape) {
    if (d == 0) {
      empty = true;
      continue;
    }
    if (total > limit / static_cast<std::size_t>(d))
      return Error(ErrorCode::InvalidArgument, std::string(what) + ": shape " + shapeText(h.shape) + " of " + descr +
                                                   " is too large: its byte size overflows");
    total *= static_cast<std::size_t>(d);
  }
  h.dataBytes = empty ? 0 : total;
  return h;
}

Expected<Buffer> decodeNpy(std::span<const unsigned char> bytes, std::string_view what) {
  MEMJIT_ASSIGN_OR_RETURN(NpyHeader h, parseNpyHeader(bytes, what));
  MEMJIT_TRY(checkDataSize(h, bytes.size() - h.dataOffset, what));
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, allocateFor(h));
  if (h.dataBytes) std::memcpy(b.data(), bytes.data() + h.dataOffset, h.dataBytes);
  MEMJIT_TRY(finish(h, b, what));
  return b;
}

Expected<Buffer> readNpy(const std::string& path) {
  const std::string what = "'" + path + "'";
  std::error_code ec;
  const auto fileSize = std::filesystem::file_size(path, ec);
  if (ec) return Error(ErrorCode::IoError, "cannot read " + what + ": " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::IoError, "cannot open " + what);
  // The preamble says how long the header is; then the header says how much data.
  std::vector<unsigned char> head(std::min<std::uintmax_t>(fileSize, 12));
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  if (!in) return Error(ErrorCode::IoError, "cannot read " + what);
  if (head.size() >= 10 && std::memcmp(head.data(), kMagic, kMagicSize) == 0 && head[6] >= 1 && head[6] <= 3) {
    std::size_t lengthBytes = head[6] == 1 ? 2 : 4;
    if (head.size() >= kMagicSize + 2 + lengthBytes) {
      std::size_t want = kMagicSize + 2 + lengthBytes + littleEndian(head, kMagicSize + 2, lengthBytes);
      std::size_t have = head.size();
      head.resize(std::min<std::uintmax_t>(want, fileSize));
      in.read(reinterpret_cast<char*>(head.data() + have), static_cast<std::streamsize>(head.size() - have));
      if (!in) return Error(ErrorCode::IoError, "cannot read " + what);
    }
  }
  MEMJIT_ASSIGN_OR_RETURN(NpyHeader h, parseNpyHeader(head, what));
  MEMJIT_TRY(checkDataSize(h, static_cast<std::size_t>(fileSize) - h.dataOffset, what));
  MEMJIT_ASSIGN_OR_RETURN(Buffer b, allocateFor(h));
  in.read(static_cast<char*>(b.data()), static_cast<std::streamsize>(h.dataBytes));
  if (!in && h.dataBytes) return Error(ErrorCode::IoError, "cannot read the data of " + what);
  MEMJIT_TRY(finish(h, b, what));
  return b;
}

Expected<std::vector<unsigned char>> encodeNpy(const Buffer& buffer) {
  if (!buffer.valid()) return Error(ErrorCode::InvalidArgument, "npy: cannot write an empty buffer");
  MEMJIT_ASSIGN_OR_RETURN(std::string descr, npyDescr(buffer.elementType()));
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shapeText(buffer.sizes()) + ", }";
  // Version 1.0 holds a header of up to 65535 bytes; a longer one (a rank in
  // the thousands) needs 2.0's four-byte length.
  std::size_t preamble = kMagicSize + 2 + 2;
  std::size_t padded = (preamble + dict.size() + 1 + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  std::uint8_t major = 1;
  if (padded - preamble > 65535) {
    major = 2;
    preamble += 2;
    padded = (preamble + dict.size() + 1 + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  }
  const std::size_t headerLength = padded - preamble;
  dict.append(headerLength - dict.size() - 1, ' ');
  dict.push_back('\n');

  Buffer rowMajor = buffer;
  if (!buffer.isRowMajorContiguous()) {
    MEMJIT_ASSIGN_OR_RETURN(rowMajor, buffer.copy());
  }
  const std::size_t dataBytes = static_cast<std::size_t>(rowMajor.numElements()) * rowMajor.elementSize();

  std::vector<unsigned char> out;
  out.reserve(padded + dataBytes);
  out.insert(out.end(), kMagic, kMagic + kMagicSize);
  out.push_back(major);
  out.push_back(0);
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out.push_back(static_cast<unsigned char>(headerLength >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  const auto* data = static_cast<const unsigned char*>(rowMajor.data());
  if (dataBytes) out.insert(out.end(), data, data + dataBytes);
  return out;
}

Error writeNpy(const std::string& path, const Buffer& buffer) {
  auto image = encodeNpy(buffer);
  if (!image) return image.error().withContext("writing '" + path + "'");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Error(ErrorCode::IoError, "cannot open '" + path + "' for writing");
  out.write(reinterpret_cast<const char*>(image->data()), static_cast<std::streamsize>(image->size()));
  out.close();
  if (!out) return Error(ErrorCode::IoError, "cannot write '" + path + "'");
  return Error::success();
}

}  // namespace memjit::runtime
