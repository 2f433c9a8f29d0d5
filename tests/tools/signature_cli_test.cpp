#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace memjit::test {
namespace {

TEST(MangleCli, PrintsThreeLines) {
  auto r = runCli({"mangle", "(memref<?x128x64xf32>, si32) -> memref<?x8x64xsi32>"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "f=I20!B11!d-1d128d64S3!t6R15!B11!t6d-1d8d64\n"
            "sip=I12!S9!k0_0k1_1R8!S5!k0_0\n"
            "iree.abi={\"a\":[[\"ndarray\",\"f32\",3,null,128,64],\"i32\"],\"r\":[[\"ndarray\",\"i32\",3,null,8,64]],"
            "\"v\":1}\n");
  EXPECT_EQ(r.err, "");
}

TEST(MangleCli, EmptyFunction) {
  auto r = runCli({"mangle", "() -> ()"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "f=I1!R1!\nsip=I1!R1!\niree.abi={\"a\":[],\"r\":[],\"v\":1}\n");
}

TEST(MangleCli, MangledOutputDemanglesBack) {
  auto m = runCli({"mangle", "(memref<2x?xf64>, ui8) -> (i32, memref<*xf32>)"});
  ASSERT_EQ(m.status, 0) << m.err;
  auto f = m.out.substr(2, m.out.find('\n') - 2);
  auto d = runCli({"demangle", f});
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out, "(Buffer<float64[2x?]>, uint8) -> (sint32, Unrecognized<?>)\n");
}

TEST(MangleCli, MalformedTypeIsOneLineWithOffset) {
  auto r = runCli({"mangle", "(memref<?xf32>, i33x) -> ()"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("memjit mangle: parse error at byte ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
}

TEST(DemangleCli, RawToString) {
  auto r = runCli({"demangle", "I23!O1!B11!d-1d128d64S3!t6R17!B13!t11d32d-1d64"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "(RefObject<?>, Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)\n");
}

TEST(DemangleCli, RawErrors) {
  auto r = runCli({"demangle", "I7!B4!t12R1!"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "memjit demangle: parse error at byte 6: illegal element code t12, expected t0..t11\n");
  r = runCli({"demangle", "I5!ab"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "memjit demangle: parse error at byte 1: span 'I' of length 5 runs past the end (3 bytes left)\n");
  r = runCli({"demangle", ""});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("byte 0"), std::string::npos) << r.err;
}

TEST(DemangleCli, Sip) {
  auto r = runCli({"demangle", "--sip", "I31!S27!k0D17!K4!bar_1K4!foo_0k1_2R12!S9!k0_0k1_1"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "inputs:\n"
            ":[\n"
            "  0:{\n"
            "    bar=raw(1),\n"
            "    foo=raw(0),\n"
            "  },\n"
            "  1=raw(2),\n"
            "],\n"
            "results:\n"
            ":[\n"
            "  0=raw(0),\n"
            "  1=raw(1),\n"
            "],\n");
  r = runCli({"demangle", "--sip", "I1!R3!_0"});
  EXPECT_EQ(r.out, "inputs:\nresults:\n=raw(0),\n");
}

TEST(DemangleCli, SipErrors) {
  auto r = runCli({"demangle", "--sip", "I12!S9!k0_0k0_1R1!"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "memjit demangle: parse error at byte 11: duplicate key 0\n");
}

TEST(DemangleCli, Json) {
  auto r = runCli({"demangle", "--json", R"({"a":["i32",["named","a","i32"],["sdict",["x","f32"]]],"r":[["ndarray","f32",2,null,3]],"v":1})"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "args:\n"
            "  0: i32\n"
            "  1: named \"a\": i32\n"
            "  2: sdict\n"
            "    \"x\": f32\n"
            "results:\n"
            "  0: ndarray<f32, ?x3>\n"
            "version: 1\n");
}

TEST(DemangleCli, JsonErrors) {
  auto r = runCli({"demangle", "--json", "{\"a\":[}"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("memjit demangle: parse error at byte 6: invalid JSON", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);
  r = runCli({"demangle", "--json", "{\"a\":[\"q\"],\"r\":[]}"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "memjit demangle: parse error at byte 6: a[0]: unknown primitive type \"q\", expected i<bits>, "
                   "f<bits>, bf16 or \"unknown\"\n");
}

TEST(DemangleCli, UsageErrors) {
  EXPECT_EQ(runCli({"demangle"}).status, 2);
  EXPECT_EQ(runCli({"demangle", "--sip"}).status, 2);
  EXPECT_EQ(runCli({"demangle", "--json", "{}", "x"}).status, 2);
  EXPECT_EQ(runCli({"mangle"}).status, 2);
}

}  // namespace
}  // namespace memjit::test
