// One case per diagnostic of the .npy reader and writer
// (memjit/runtime/npy.h): the code and the words naming what and where.
#include "memjit/runtime/npy.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "support/expect_error.h"
#include "support/npy_files.h"

namespace memjit::runtime {
namespace {

using test::Bytes;
using test::expectError;
using test::npyFile;
using test::scratch;
using test::writeBytes;

const std::string kGoodHeader = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
const Bytes kTwoFloats = {0, 0, 0x80, 0x3f, 0, 0, 0, 0x40};

TEST(NpyErrors, BadMagic) {
  Bytes b = npyFile(1, kGoodHeader, kTwoFloats);
  b[1] = 'X';
  expectError(decodeNpy(b, "'x.npy'").error(), ErrorCode::ParseError, {"'x.npy'", "not an npy file"});
  expectError(decodeNpy(Bytes{0x93, 'N'}, "'x.npy'").error(), ErrorCode::ParseError, {"'x.npy'", "not an npy file"});
}

TEST(NpyErrors, UnsupportedVersion) {
  Bytes b = npyFile(1, kGoodHeader, kTwoFloats);
  b[6] = 4;
  expectError(decodeNpy(b, "'x.npy'").error(), ErrorCode::Unsupported, {"'x.npy'", "version 4.0"});
  b[6] = 1;
  b[7] = 1;
  expectError(decodeNpy(b, "'x.npy'").error(), ErrorCode::Unsupported, {"'x.npy'", "version 1.1"});
}

TEST(NpyErrors, Truncated) {
  Bytes b = npyFile(2, kGoodHeader, kTwoFloats);
  expectError(decodeNpy(Bytes(b.begin(), b.begin() + 9), "'x.npy'").error(), ErrorCode::ParseError,
              {"'x.npy'", "ends inside the header length"});
  expectError(decodeNpy(Bytes(b.begin(), b.begin() + 30), "'x.npy'").error(), ErrorCode::ParseError,
              {"'x.npy'", "ends inside the header", "needs 70 bytes"});
}

TEST(NpyErrors, DataShorterOrLongerThanTheHeaderSays) {
  Bytes shortData(kTwoFloats.begin(), kTwoFloats.begin() + 6);
  expectError(decodeNpy(npyFile(1, kGoodHeader, shortData), "'x.npy'").error(), ErrorCode::ParseError,
              {"'x.npy'", "ends after 6 bytes of data", "needs 8 bytes", "(2,)", "f32"});
  Bytes longData = kTwoFloats;
  longData.push_back(0);
  expectError(decodeNpy(npyFile(1, kGoodHeader, longData), "'x.npy'").error(), ErrorCode::ParseError,
              {"'x.npy'", "1 bytes after the data"});
}

TEST(NpyErrors, BadHeaderDict) {
  struct Case {
    const char* header;
    const char* words;
  } cases[] = {
      {"['descr', '<f4']", "does not start with '{'"},
      {"{'descr': '<f4', 'fortran_order': False}", "no 'shape'"},
      {"{'fortran_order': False, 'shape': (2,)}", "no 'descr'"},
      {"{'descr': '<f4', 'shape': (2,)}", "no 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unknown key 'extra'"},
      {"{'descr': '<f4', 'descr': '<f4'}", "'descr' appears twice"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "must be True or False"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "shape must be a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}", "non-negative integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", "expected ',' or ')'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "overflows int64"},
      {"{'descr' '<f4'}", "expected ':'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "unexpected text after"},
      {"{'descr': '<f4' 'fortran_order': False}", "expected ',' or '}'"},
      {"{descr: '<f4'}", "quoted string"},
      {"{'descr", "unterminated string"},
      {"{'de\\x73cr': '<f4'}", "escapes"},
  };
  for (const auto& c : cases) {
    auto r = decodeNpy(npyFile(1, c.header, kTwoFloats), "'x.npy'");
    ASSERT_FALSE(r.ok()) << c.header;
    expectError(r.error(), ErrorCode::ParseError, {"'x.npy'", "bad header at byte", c.words});
  }
}

TEST(NpyErrors, UnsupportedDtypes) {
  for (const char* descr : {"<U4", "<M8[ns]", "O", "<f16", "<V3", "%f4", "<fx"}) {
    auto r = decodeNpy(npyFile(1, std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,)}"),
                       "'x.npy'");
    ASSERT_FALSE(r.ok()) << descr;
    expectError(r.error(), ErrorCode::Unsupported, {"'x.npy'", descr, "not supported"});
  }
  auto structured = decodeNpy(npyFile(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}"), "'x.npy'");
  expectError(structured.error(), ErrorCode::Unsupported, {"'x.npy'", "structured dtypes"});
}

TEST(NpyErrors, ShapeTimesItemSizeOverflows) {
  auto r = decodeNpy(npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4)}"), "'x.npy'");
  expectError(r.error(), ErrorCode::InvalidArgument, {"'x.npy'", "(4611686018427387904, 4)", "overflows"});
  // Also when another dim is 0: an empty array's strides multiply the others.
  auto empty = decodeNpy(npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4)}"),
                         "'x.npy'");
  expectError(empty.error(), ErrorCode::InvalidArgument, {"'x.npy'", "(0, 4611686018427387904, 4)", "overflows"});
}

TEST(NpyErrors, BoolThatIsNeitherZeroNorOne) {
  auto r = decodeNpy(npyFile(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", {1, 2}), "'x.npy'");
  expectError(r.error(), ErrorCode::ParseError, {"'x.npy'", "bool element 1 is 2"});
}

TEST(NpyErrors, FileErrors) {
  expectError(readNpy(scratch("missing.npy").string()).error(), ErrorCode::IoError, {"missing.npy", "cannot read"});
  // A header that claims far more data than the file holds fails before allocating it.
  writeBytes(scratch("huge.npy"), npyFile(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,)}",
                                          kTwoFloats));
  expectError(readNpy(scratch("huge.npy").string()).error(), ErrorCode::ParseError,
              {"huge.npy", "ends after 8 bytes of data", "needs 8796093022208 bytes"});
  writeBytes(scratch("short.npy"), Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 200, 0, '{'});
  expectError(readNpy(scratch("short.npy").string()).error(), ErrorCode::ParseError, {"short.npy", "ends inside the header"});

  std::array<float, 1> one{1};
  auto b = Buffer::view(ElementType::F32, one.data(), {1});
  ASSERT_TRUE(b.ok());
  expectError(writeNpy(scratch("").string(), *b), ErrorCode::IoError, {"cannot open", "for writing"});
}

TEST(NpyErrors, UnwritableBuffers) {
  std::array<void*, 1> p{nullptr};
  auto ptrs = Buffer::view(ElementType::Ptr, p.data(), {1});
  ASSERT_TRUE(ptrs.ok());
  expectError(encodeNpy(*ptrs).error(), ErrorCode::Unsupported, {"!llvm.ptr", "no npy dtype"});
  expectError(writeNpy(scratch("p.npy").string(), *ptrs), ErrorCode::Unsupported, {"p.npy", "!llvm.ptr"});
  expectError(encodeNpy(Buffer()).error(), ErrorCode::InvalidArgument, {"empty buffer"});
}

}  // namespace
}  // namespace memjit::runtime
