// The .npy reader and writer: files assembled byte by byte here (each header
// version, byte order and memory order), round trips of every element type,
// and a cross-check with NumPy itself when python3 has it.
#include "memjit/runtime/npy.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "memjit/runtime/half.h"
#include "support/files.h"
#include "support/npy_files.h"

namespace memjit::runtime {
namespace {

using test::Bytes;
using test::npyFile;
using test::scratch;
using test::writeBytes;

template <typename T>
T elementAt(const Buffer& b, std::initializer_list<std::int64_t> idx) {
  T v;
  std::memcpy(&v, b.at(std::vector<std::int64_t>(idx)), sizeof v);
  return v;
}

TEST(Npy, ReadsVersion1LittleEndianCOrder) {
  // np.save of np.arange(6, dtype='<i4').reshape(2, 3), header padded as NumPy pads it.
  std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }";
  header.append(118 - header.size() - 1, ' ');
  header += '\n';
  Bytes data = {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0};
  auto b = decodeNpy(npyFile(1, header, data));
  ASSERT_TRUE(b.ok()) << b.error().str();
  EXPECT_EQ(b->elementType(), ElementType::SI32);
  ASSERT_EQ(b->rank(), 2);
  EXPECT_EQ(std::vector<std::int64_t>(b->sizes().begin(), b->sizes().end()), (std::vector<std::int64_t>{2, 3}));
  EXPECT_TRUE(b->isRowMajorContiguous());
  EXPECT_EQ(elementAt<std::int32_t>(*b, {1, 2}), 5);
  EXPECT_EQ(elementAt<std::int32_t>(*b, {0, 1}), 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b->data()) % 64, 0u);
}

TEST(Npy, ReadsVersion2And3) {
  Bytes data = {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40};  // 1.0f, 2.0f
  for (unsigned major : {2u, 3u}) {
    auto b = decodeNpy(npyFile(major, "{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}\n", data));
    ASSERT_TRUE(b.ok()) << major << ": " << b.error().str();
    EXPECT_EQ(b->elementType(), ElementType::F32);
    EXPECT_EQ(elementAt<float>(*b, {1}), 2.0f);
  }
  // 3.0's header is UTF-8; the keys and values memjit reads are ASCII either way.
  auto h = parseNpyHeader(npyFile(3, "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}  \n", data));
  ASSERT_TRUE(h.ok()) << h.error().str();
  EXPECT_EQ(h->majorVersion, 3);
  EXPECT_EQ(h->dataBytes, 8u);
}

TEST(Npy, ByteSwapsBigEndianData) {
  auto i32 = decodeNpy(npyFile(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }\n",
                               {0x00, 0x00, 0x01, 0x02, 0xff, 0xff, 0xff, 0xfe}));
  ASSERT_TRUE(i32.ok()) << i32.error().str();
  EXPECT_EQ(elementAt<std::int32_t>(*i32, {0}), 0x0102);
  EXPECT_EQ(elementAt<std::int32_t>(*i32, {1}), -2);

  auto f64 = decodeNpy(npyFile(1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }\n",
                               {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}));
  ASSERT_TRUE(f64.ok()) << f64.error().str();
  EXPECT_EQ(elementAt<double>(*f64, {0}), 3.141592653589793);

  auto u16 = decodeNpy(npyFile(2, "{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }\n", {0xab, 0xcd}));
  ASSERT_TRUE(u16.ok()) << u16.error().str();
  EXPECT_EQ(u16->elementType(), ElementType::UI16);
  EXPECT_EQ(elementAt<std::uint16_t>(*u16, {0}), 0xabcd);

  auto f16v = decodeNpy(npyFile(1, "{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }\n", {0x3c, 0x00}));
  ASSERT_TRUE(f16v.ok()) << f16v.error().str();
  EXPECT_EQ(static_cast<float>(elementAt<f16>(*f16v, {0})), 1.0f);

  // A complex swaps each part by itself: (1 + 2i) as two big-endian floats.
  auto c8 = decodeNpy(npyFile(1, "{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }\n",
                              {0x3f, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00}));
  ASSERT_TRUE(c8.ok()) << c8.error().str();
  EXPECT_EQ(c8->elementType(), ElementType::ComplexF32);
  EXPECT_EQ(elementAt<std::complex<float>>(*c8, {0}), std::complex<float>(1.0f, 2.0f));

  // One-byte types have no byte order to undo.
  auto i8 = decodeNpy(npyFile(1, "{'descr': '>i1', 'fortran_order': False, 'shape': (1,), }\n", {0xff}));
  ASSERT_TRUE(i8.ok()) << i8.error().str();
  EXPECT_EQ(elementAt<std::int8_t>(*i8, {0}), -1);
}

TEST(Npy, FortranOrderBecomesColumnMajorStrides) {
  // [[0, 1, 2], [3, 4, 5]] stored column by column: 0 3 1 4 2 5.
  auto b = decodeNpy(npyFile(1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }\n",
                             {0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5, 0}));
  ASSERT_TRUE(b.ok()) << b.error().str();
  EXPECT_EQ(std::vector<std::int64_t>(b->strides().begin(), b->strides().end()), (std::vector<std::int64_t>{1, 2}));
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) EXPECT_EQ(elementAt<std::int16_t>(*b, {i, j}), i * 3 + j) << i << "," << j;
  // Written back it is C order, and the values survive.
  auto image = encodeNpy(*b);
  ASSERT_TRUE(image.ok()) << image.error().str();
  auto again = decodeNpy(*image);
  ASSERT_TRUE(again.ok()) << again.error().str();
  EXPECT_TRUE(again->isRowMajorContiguous());
  EXPECT_EQ(elementAt<std::int16_t>(*again, {1, 0}), 3);
  EXPECT_EQ(elementAt<std::int16_t>(*again, {0, 2}), 2);
}

TEST(Npy, BoolsAndBfloat16) {
  auto b1 = decodeNpy(npyFile(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n", {1, 0, 1}));
  ASSERT_TRUE(b1.ok()) << b1.error().str();
  EXPECT_EQ(b1->elementType(), ElementType::I1);
  EXPECT_EQ(elementAt<std::uint8_t>(*b1, {2}), 1);

  // ml_dtypes' bfloat16 as np.save writes it ('<V2'), and as its workaround does.
  for (const char* descr : {"<V2", "|V2", "bfloat16"}) {
    auto bf = decodeNpy(npyFile(1, std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1,), }\n",
                                {0x80, 0x3f}));
    ASSERT_TRUE(bf.ok()) << descr << ": " << bf.error().str();
    EXPECT_EQ(bf->elementType(), ElementType::BF16);
    EXPECT_EQ(static_cast<float>(elementAt<bf16>(*bf, {0})), 1.0f);
  }
  auto bfBig = decodeNpy(npyFile(1, "{'descr': '>V2', 'fortran_order': False, 'shape': (1,), }\n", {0x3f, 0x80}));
  ASSERT_TRUE(bfBig.ok()) << bfBig.error().str();
  EXPECT_EQ(static_cast<float>(elementAt<bf16>(*bfBig, {0})), 1.0f);
}

TEST(Npy, ScalarsEmptyArraysAndOldLongSuffix) {
  auto scalar = decodeNpy(npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n",
                                  {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  ASSERT_TRUE(scalar.ok()) << scalar.error().str();
  EXPECT_EQ(scalar->rank(), 0);
  EXPECT_EQ(*static_cast<double*>(scalar->data()), 1.0);

  auto empty = decodeNpy(npyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (0, 3), }\n"));
  ASSERT_TRUE(empty.ok()) << empty.error().str();
  EXPECT_EQ(empty->numElements(), 0);
  EXPECT_EQ(empty->size(1), 3);

  auto py2 = parseNpyHeader(npyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L), }\n"));
  ASSERT_TRUE(py2.ok()) << py2.error().str();
  EXPECT_EQ(py2->shape, (std::vector<std::int64_t>{2, 3}));
}

TEST(Npy, WritesTheHeaderNumPyWrites) {
  std::array<float, 2> values{1.5f, -2.0f};
  auto b = Buffer::view(ElementType::F32, values.data(), {2});
  ASSERT_TRUE(b.ok());
  auto image = encodeNpy(*b);
  ASSERT_TRUE(image.ok()) << image.error().str();
  // np.save(f, np.array([1.5, -2], dtype='<f4')) writes exactly this header.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  header.append(117 - header.size(), ' ');
  header += '\n';
  Bytes expected = npyFile(1, header, {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0});
  EXPECT_EQ(*image, expected);
  EXPECT_EQ(image->size(), 128u + 8u);
}

TEST(Npy, RoundTripsEveryElementTypeItMaps) {
  for (ElementType t : kAllElementTypes) {
    if (t == ElementType::Ptr) continue;
    auto b = Buffer::allocate(t, {3, 2});
    ASSERT_TRUE(b.ok());
    auto* bytes = static_cast<unsigned char*>(b->data());
    for (std::size_t i = 0; i < 6 * b->elementSize(); ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    if (t == ElementType::I1)
      for (std::size_t i = 0; i < 6; ++i) bytes[i] = i % 2;
    auto image = encodeNpy(*b);
    ASSERT_TRUE(image.ok()) << spelling(t) << ": " << image.error().str();
    auto back = decodeNpy(*image);
    ASSERT_TRUE(back.ok()) << spelling(t) << ": " << back.error().str();
    EXPECT_TRUE(elementTypesCompatible(t, back->elementType()) || t == back->elementType())
        << spelling(t) << " came back as " << spelling(back->elementType());
    EXPECT_EQ(back->elementSize(), b->elementSize());
    EXPECT_EQ(std::memcmp(back->data(), b->data(), 6 * b->elementSize()), 0) << spelling(t);
    EXPECT_EQ(std::vector<std::int64_t>(back->sizes().begin(), back->sizes().end()), (std::vector<std::int64_t>{3, 2}));
  }
}

TEST(Npy, SignlessIntegersAndIndexAreWrittenSigned) {
  EXPECT_EQ(*npyDescr(ElementType::I32), "<i4");
  EXPECT_EQ(*npyDescr(ElementType::Index), "<i8");
  EXPECT_EQ(*npyDescr(ElementType::I8), "|i1");
  EXPECT_EQ(*npyDescr(ElementType::BF16), "<V2");
  EXPECT_EQ(*npyDescr(ElementType::I1), "|b1");
}

TEST(Npy, WritesAStridedViewInRowMajorOrder) {
  // The transpose of [[0, 1, 2], [3, 4, 5]] as a view: strides (1, 3).
  std::array<double, 6> v{0, 1, 2, 3, 4, 5};
  auto t = Buffer::view(ElementType::F64, v.data(), {3, 2}, {1, 3});
  ASSERT_TRUE(t.ok());
  auto image = encodeNpy(*t);
  ASSERT_TRUE(image.ok()) << image.error().str();
  auto back = decodeNpy(*image);
  ASSERT_TRUE(back.ok()) << back.error().str();
  const auto* d = static_cast<const double*>(back->data());
  EXPECT_EQ(std::vector<double>(d, d + 6), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Npy, LongHeadersUseVersion2) {
  // A header over 65535 bytes: rank 30000 of ones.
  auto b = Buffer::allocate(ElementType::UI8, std::vector<std::int64_t>(30000, 1));
  ASSERT_TRUE(b.ok());
  *static_cast<unsigned char*>(b->data()) = 42;
  auto image = encodeNpy(*b);
  ASSERT_TRUE(image.ok()) << image.error().str();
  EXPECT_EQ((*image)[6], 2);
  auto h = parseNpyHeader(*image);
  ASSERT_TRUE(h.ok()) << h.error().str();
  EXPECT_EQ(h->dataOffset % 64, 0u);
  auto back = decodeNpy(*image);
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->rank(), 30000);
  EXPECT_EQ(*static_cast<unsigned char*>(back->data()), 42);
}

TEST(Npy, FilesRoundTrip) {
  std::array<std::int64_t, 4> v{1, -2, 3, -4};
  auto b = Buffer::view(ElementType::SI64, v.data(), {2, 2});
  ASSERT_TRUE(b.ok());
  const std::string path = scratch("i64.npy").string();
  ASSERT_FALSE(writeNpy(path, *b));
  auto back = readNpy(path);
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(elementAt<std::int64_t>(*back, {1, 1}), -4);
  // The file reader shares the header checks with decodeNpy.
  writeBytes(scratch("big.npy"), npyFile(1, "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 2), }\n",
                                         {0, 1, 0, 2, 0, 3, 0, 4}));
  auto big = readNpy(scratch("big.npy").string());
  ASSERT_TRUE(big.ok()) << big.error().str();
  EXPECT_EQ(elementAt<std::uint16_t>(*big, {0, 1}), 3);
}

// ---------------------------------------------------------------------------
// NumPy itself, when python3 can import it (not a build dependency).

// The first python3 that imports numpy: the one on PATH, else Debian's own
// (PATH may hold a pyenv python3 that does not see Debian's python3-numpy).
std::string pythonWithNumPy() {
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(python) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0) return python;
  return "";
}

TEST(NpyNumPy, NumPyReadsWhatMemjitWritesAndBack) {
  const std::string python = pythonWithNumPy();
  if (python.empty()) GTEST_SKIP() << "python3 cannot import numpy (Debian package python3-numpy): cross-check skipped";
  std::array<float, 6> v{0, 1, 2, 3, 4, 5};
  auto b = Buffer::view(ElementType::F32, v.data(), {2, 3});
  ASSERT_TRUE(b.ok());
  const auto in = scratch("from_memjit.npy"), out = scratch("from_numpy.npy");
  ASSERT_FALSE(writeNpy(in.string(), *b));
  const std::string script =
      "import numpy as np, sys\n"
      "a = np.load(sys.argv[1])\n"
      "assert a.dtype == np.float32 and a.shape == (2, 3), (a.dtype, a.shape)\n"
      "assert (a == np.arange(6, dtype=np.float32).reshape(2, 3)).all()\n"
      "np.save(sys.argv[2], np.asfortranarray(a.astype('>f8') * 2))\n";
  std::ofstream(scratch("check.py")) << script;
  const std::string command = python + " " + scratch("check.py").string() + " " + in.string() + " " + out.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  auto back = readNpy(out.string());
  ASSERT_TRUE(back.ok()) << back.error().str();
  EXPECT_EQ(back->elementType(), ElementType::F64);
  EXPECT_EQ(elementAt<double>(*back, {1, 2}), 10.0);
  EXPECT_EQ(elementAt<double>(*back, {0, 1}), 2.0);
}

// Element k (row-major) of the arrays the script below writes: k, as the type
// holds it (k % 2 for bools); complex ones hold k - k*i.
double realAt(const Buffer& b, std::int64_t i, std::int64_t j, double* imag) {
  const void* p = b.at(std::vector<std::int64_t>{i, j});
  auto get = [&](auto zero) {
    decltype(zero) v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  *imag = 0;
  switch (b.elementType()) {
    case ElementType::I1: return get(std::uint8_t{});
    case ElementType::SI8: return get(std::int8_t{});
    case ElementType::SI16: return get(std::int16_t{});
    case ElementType::SI32: return get(std::int32_t{});
    case ElementType::SI64: return get(std::int64_t{});
    case ElementType::UI8: return get(std::uint8_t{});
    case ElementType::UI16: return get(std::uint16_t{});
    case ElementType::UI32: return get(std::uint32_t{});
    case ElementType::UI64: return get(std::uint64_t{});
    case ElementType::F16: return static_cast<float>(*static_cast<const f16*>(p));
    case ElementType::F32: return get(float{});
    case ElementType::F64: return get(double{});
    case ElementType::ComplexF32: {
      auto c = *static_cast<const std::complex<float>*>(p);
      *imag = c.imag();
      return c.real();
    }
    case ElementType::ComplexF64: {
      auto c = *static_cast<const std::complex<double>*>(p);
      *imag = c.imag();
      return c.real();
    }
    default: ADD_FAILURE() << "unexpected element type " << spelling(b.elementType()); return -1;
  }
}

TEST(NpyNumPy, ReadsEveryVersionByteOrderOrderAndDtypeNumPyWrites) {
  const std::string python = pythonWithNumPy();
  if (python.empty()) GTEST_SKIP() << "python3 cannot import numpy (Debian package python3-numpy): cross-check skipped";
  const auto dir = scratch("numpy_matrix");
  std::filesystem::create_directories(dir);
  const std::string script =
      "import numpy as np, sys, os\n"
      "from numpy.lib import format as fmt\n"
      "k = np.arange(6).reshape(2, 3)\n"
      "for kind in ['b1','i1','i2','i4','i8','u1','u2','u4','u8','f2','f4','f8','c8','c16']:\n"
      "  for order in '<>':\n"
      "    a = (k % 2 if kind == 'b1' else (k - 1j * k if kind[0] == 'c' else k)).astype(order + kind)\n"
      "    for fortran in (False, True):\n"
      "      b = np.asfortranarray(a) if fortran else a\n"
      "      for v in (1, 2, 3):\n"
      "        name = '%s%s_%s_v%d.npy' % ('be' if order == '>' else 'le', kind, 'F' if fortran else 'C', v)\n"
      "        with open(os.path.join(sys.argv[1], name), 'wb') as f: fmt.write_array(f, b, version=(v, 0))\n";
  std::ofstream(dir / "write.py") << script;
  const std::string command = python + " " + (dir / "write.py").string() + " " + dir.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".npy") continue;
    ++files;
    const std::string name = entry.path().filename().string();
    auto b = readNpy(entry.path().string());
    ASSERT_TRUE(b.ok()) << name << ": " << b.error().str();
    ASSERT_EQ(b->rank(), 2) << name;
    // Names are <le|be><kind>_<C|F>_v<version>.npy.
    const bool isBool = name.compare(2, 2, "b1") == 0, isComplex = name[2] == 'c';
    for (std::int64_t i = 0; i < 2; ++i)
      for (std::int64_t j = 0; j < 3; ++j) {
        double imag;
        const double k = static_cast<double>(i * 3 + j);
        EXPECT_EQ(realAt(*b, i, j, &imag), isBool ? std::fmod(k, 2) : k) << name << " at " << i << "," << j;
        EXPECT_EQ(imag, isComplex ? -k : 0.0) << name << " at " << i << "," << j;
      }
  }
  EXPECT_EQ(files, 14 * 2 * 2 * 3);
}

TEST(Npy, ElementTypeFromEachDescr) {
  struct Case {
    const char* descr;
    ElementType type;
    bool bigEndian;
  };
  const Case cases[] = {
      {"|b1", ElementType::I1, false},     {"|i1", ElementType::SI8, false},   {">i1", ElementType::SI8, false},
      {"<i2", ElementType::SI16, false},   {">i4", ElementType::SI32, true},   {"=i8", ElementType::SI64, false},
      {"|u1", ElementType::UI8, false},    {"<u2", ElementType::UI16, false},  {"<u4", ElementType::UI32, false},
      {">u8", ElementType::UI64, true},    {"<f2", ElementType::F16, false},   {">f4", ElementType::F32, true},
      {"<f8", ElementType::F64, false},    {"<c8", ElementType::ComplexF32, false},
      {">c16", ElementType::ComplexF64, true}, {"<V2", ElementType::BF16, false}, {"|V2", ElementType::BF16, false},
      {">V2", ElementType::BF16, true},    {"bfloat16", ElementType::BF16, false},
  };
  for (const Case& c : cases) {
    bool bigEndian = !c.bigEndian;  // must be overwritten either way
    auto t = elementTypeFromNpyDescr(c.descr, bigEndian);
    ASSERT_TRUE(t.ok()) << c.descr << ": " << t.error().message();
    EXPECT_EQ(*t, c.type) << c.descr;
    // One byte has no order: '>' there needs no swapping.
    EXPECT_EQ(bigEndian, c.bigEndian) << c.descr;
  }
}

TEST(Npy, ElementTypeFromUnsupportedDescr) {
  // '<f16' is NumPy's float128 (sizes are bytes), not a half; the rest are
  // malformed or types memjit has no element for.
  for (const char* descr : {"", "<", "<f", "f4", "<f3", "<f16", "<i16", "<b2", "<c4", "<V4", "<U4", "<O8", "<M8",
                            "!f4", "<f4 ", "<f04", "<f-4", "bfloat", "<m8"}) {
    bool bigEndian = true;
    auto t = elementTypeFromNpyDescr(descr, bigEndian, "x.npy");
    ASSERT_FALSE(t.ok()) << descr;
    EXPECT_EQ(t.error().code(), ErrorCode::Unsupported) << descr;
    EXPECT_EQ(t.error().message(), std::string("x.npy: dtype '") + descr +
                                       "' is not supported (memjit reads b1, i1..i8, u1..u8, f2, f4, f8, c8, "
                                       "c16 and V2 as bfloat16)");
    EXPECT_FALSE(bigEndian) << descr;
  }
}

}  // namespace
}  // namespace memjit::runtime
