// `memjit call`: kernels built here with memjit's codegen and
// written as .ll files, called through the CLI with each kind of argument
// (.npy, literal, generator; by position, V1 name and SIP key); printed
// results and written .npy files checked against values computed here; and
// every diagnostic.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "support/cli_runner.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/runtime/npy.h"
#include "memjit/runtime/print.h"
#include "memjit/signature/sip_signature.h"
#include "memjit/type_syntax.h"
#include "support/files.h"

namespace memjit {
namespace {

using test::runCli;
namespace fs = std::filesystem;

// Each test has a folder of its own: ctest runs the tests in parallel processes.
fs::path testDir;
const fs::path& dir() { return testDir; }
std::string file(const std::string& name) { return (dir() / name).string(); }

void writeModule(codegen::Module& m, const std::string& name, bool stripMetadata = false) {
  ASSERT_FALSE(m.verify());
  llvm::Module& ir = m.llvm();
  if (stripMetadata) {
    std::vector<llvm::GlobalVariable*> drop;
    for (llvm::GlobalVariable& g : ir.globals())
      if (g.getName().starts_with("_memjit_")) drop.push_back(&g);
    for (llvm::GlobalVariable* g : drop) g->eraseFromParent();
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  ir.print(os, nullptr);
  os.flush();
  std::ofstream(file(name)) << text;
}

// axpy(alpha: f32, x: memref<?xf32>, y: memref<?xf32>) -> f32: y += alpha * x; returns y[0].
void addAxpy(codegen::Module& m) {
  codegen::FunctionOptions options;
  options.argumentNames = {"alpha", "x", "y"};
  codegen::FunctionBuilder b(m, "axpy", *parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> f32"), options);
  codegen::Value alpha = b.arg("alpha"), x = b.arg("x"), y = b.arg("y");
  b.forLoop(b.index(0), b.dim(x, 0), b.index(1),
            [&](codegen::Value i) { b.store(b.load(y, {i}) + alpha * b.load(x, {i}), y, {i}); });
  b.ret({b.load(y, {b.index(0)})});
  ASSERT_FALSE(b.finish());
}

// addsip(lhs, rhs, out: memref<3xf64>) with a SIP dict {lhs, out, rhs}: out = lhs + rhs.
void addSipAdd(codegen::Module& m) {
  const auto type = *parseFunctionType("(memref<3xf64>, memref<3xf64>, memref<3xf64>) -> ()");
  auto sig = signature::describe("addsip", type);
  ASSERT_TRUE(sig.ok());
  signature::SipMangler mangler;
  ASSERT_FALSE(mangler.set(0, {std::string("lhs")}));
  ASSERT_FALSE(mangler.set(1, {std::string("rhs")}));
  ASSERT_FALSE(mangler.set(2, {std::string("out")}));
  sig->sip = signature::mangle(signature::SipStructure{*mangler.tree(), std::nullopt});
  codegen::FunctionOptions options;
  options.signature = *sig;
  codegen::FunctionBuilder b(m, "addsip", type, options);
  b.forLoop(b.index(0), b.index(3), b.index(1), [&](codegen::Value i) {
    b.store(b.load(b.arg(0), {i}) + b.load(b.arg(1), {i}), b.arg(2), {i});
  });
  b.ret();
  ASSERT_FALSE(b.finish());
}

// isum(x: memref<?x?xi32>, k: i32) -> (i32, i64): sum of x plus k, and the element count.
void addIntegerSum(codegen::Module& m) {
  codegen::FunctionBuilder b(m, "isum", *parseFunctionType("(memref<?x?xi32>, i32) -> (i32, i64)"));
  codegen::Value x = b.arg(0);
  auto rows = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.arg(1)}, [&](codegen::Value i, const auto& acc) {
    return b.forLoop(b.index(0), b.dim(x, 1), b.index(1), acc,
                     [&](codegen::Value j, const auto& inner) { return std::vector<codegen::Value>{inner[0] + b.load(x, {i, j})}; });
  });
  b.ret({rows[0], b.cast(b.dim(x, 0) * b.dim(x, 1), ElementType::I64)});
  ASSERT_FALSE(b.finish());
}

class CallCli : public ::testing::Test {
 protected:
  void SetUp() override {
    testDir = test::freshDir(std::string("tools/call_cli/") +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    codegen::Module kernels("kernels");
    addAxpy(kernels);
    addSipAdd(kernels);
    addIntegerSum(kernels);
    ASSERT_FALSE(codegen::addScaledCopy(kernels, "scaled", {.element = ElementType::F32}));
    writeModule(kernels, "kernels.ll");

    codegen::Module single("single");
    ASSERT_FALSE(codegen::addScaledCopy(single, "scaled", {.element = ElementType::F64}));
    writeModule(single, "single.ll");

    codegen::Module bare("bare");  // as mlir-translate writes it: no memjit metadata
    ASSERT_FALSE(codegen::addSum(bare, "sum", {.element = ElementType::F32}));
    writeModule(bare, "bare.ll", true);
  }
};

// The data part of MLIR's printMemref output ("data =" and what follows).
std::string dataPart(const std::string& printed) {
  auto at = printed.find("data =");
  return at == std::string::npos ? printed : printed.substr(at);
}

template <typename T>
std::vector<T> readValues(const std::string& path) {
  auto b = runtime::readNpy(path);
  EXPECT_TRUE(b.ok()) << path << ": " << b.error().str();
  if (!b) return {};
  const T* p = static_cast<const T*>(b->data());
  return std::vector<T>(p, p + b->numElements());
}

void writeValues(const std::string& path, ElementType t, std::vector<std::int64_t> shape, const void* data) {
  auto b = runtime::Buffer::view(t, const_cast<void*>(data), std::move(shape));
  ASSERT_TRUE(b.ok());
  ASSERT_FALSE(runtime::writeNpy(path, *b));
}

TEST_F(CallCli, PositionalNpyLiteralAndGenerator) {
  const std::vector<float> x{1.5f, -2, 4, 0.25f};
  writeValues(file("x.npy"), ElementType::F32, {4}, x.data());
  auto r = runCli({"call", file("kernels.ll"), "-e", "axpy", "--arg", "2.5", "--arg", file("x.npy"), "--arg", "iota:4",
                   "--out", "y=" + file("y.npy"), "--print", "x"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // y = iota + 2.5 x; the result is y[0], printed first, then x.
  std::vector<float> expected;
  for (std::size_t i = 0; i < 4; ++i) expected.push_back(static_cast<float>(i) + 2.5f * x[i]);
  EXPECT_EQ(readValues<float>(file("y.npy")), expected);
  ASSERT_EQ(r.out.substr(0, r.out.find('\n')), "3.75");
  auto xs = runtime::Buffer::view(ElementType::F32, const_cast<float*>(x.data()), {4});
  EXPECT_EQ(dataPart(r.out), dataPart(runtime::formatMemref(*xs)));
}

TEST_F(CallCli, ArgumentsByV1Name) {
  auto r = runCli({"call", file("kernels.ll"), "-e", "axpy", "--arg", "y=ones:4", "--arg", "alpha=0.5", "--arg",
                   "x=iota:4", "--print", "y", "--print", "arg1"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<float> y{1, 1.5f, 2, 2.5f}, x{0, 1, 2, 3};
  auto ys = runtime::Buffer::view(ElementType::F32, y.data(), {4});
  auto xs = runtime::Buffer::view(ElementType::F32, x.data(), {4});
  // The result y[0] first, then y (in place: 1 + 0.5 x), then x (raw input 1).
  EXPECT_EQ(r.out.substr(0, 2), "1\n");
  const auto yAt = r.out.find(dataPart(runtime::formatMemref(*ys)));
  const auto xAt = r.out.find(dataPart(runtime::formatMemref(*xs)));
  EXPECT_NE(yAt, std::string::npos) << r.out;
  EXPECT_NE(xAt, std::string::npos) << r.out;
  EXPECT_LT(yAt, xAt) << r.out;
}

// An object from `memjit compile` describes its functions as well as the IR
// did: memjit call calls it by V1 name the same way.
TEST_F(CallCli, ObjectFileFromMemjitCompile) {
  auto compiled = runCli({"compile", file("kernels.ll"), "-o", file("kernels.o")});
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  auto r = runCli({"call", file("kernels.o"), "-e", "axpy", "--arg", "y=ones:4", "--arg", "alpha=0.5", "--arg",
                   "x=iota:4", "--print", "y"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<float> y{1, 1.5f, 2, 2.5f};
  auto ys = runtime::Buffer::view(ElementType::F32, y.data(), {4});
  EXPECT_EQ(r.out.substr(0, 2), "1\n");
  EXPECT_NE(r.out.find(dataPart(runtime::formatMemref(*ys))), std::string::npos) << r.out;
}

TEST_F(CallCli, ArgumentsBySipKey) {
  auto r = runCli({"call", file("kernels.ll"), "-e", "addsip", "--arg", "out=zeros", "--arg", "rhs=ones:3", "--arg",
                   "lhs=iota", "--out", "out=" + file("sum.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");  // no results, and the output argument went to a file
  EXPECT_EQ(readValues<double>(file("sum.npy")), (std::vector<double>{1, 2, 3}));
}

TEST_F(CallCli, IntegerResultsPrintedAndWritten) {
  const std::vector<std::int32_t> m{1, 2, 3, -4, 5, 6};
  writeValues(file("m.npy"), ElementType::SI32, {2, 3}, m.data());
  auto r = runCli({"call", file("kernels.ll"), "-e", "isum", "--arg", file("m.npy"), "--arg", "-100"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "-87\n6\n");
  r = runCli({"call", file("kernels.ll"), "-e", "isum", "--arg", "iota:3x4", "--arg", "0x10", "--out",
              "1=" + file("count.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "82\n");  // 0 + ... + 11 + 16; the count went to the file
  EXPECT_EQ(readValues<std::int64_t>(file("count.npy")), (std::vector<std::int64_t>{12}));
}

TEST_F(CallCli, MemrefResultToNpyOrPrinted) {
  // The only function of single.ll is the entry; the only result is --out's.
  auto r = runCli({"call", file("single.ll"), "--arg", "iota:5", "--arg", "3", "--out", file("scaled.npy")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(readValues<double>(file("scaled.npy")), (std::vector<double>{0, 3, 6, 9, 12}));
  r = runCli({"call", file("single.ll"), "--arg", "iota:5", "--arg", "3", "--out", file("scaled.npy"), "--print-results"});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<double> expected{0, 3, 6, 9, 12};
  auto e = runtime::Buffer::view(ElementType::F64, expected.data(), {5});
  EXPECT_EQ(dataPart(r.out), dataPart(runtime::formatMemref(*e)));
  EXPECT_EQ(r.out.rfind("Memref base@ = ", 0), 0u) << r.out;
  r = runCli({"call", file("single.ll"), "--arg", "iota:5", "--arg", "3", "--no-print"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(CallCli, RandomIsDeterministicPerSeedAndInRange) {
  auto run = [&](const std::string& spec, const std::string& out) {
    auto r = runCli({"call", file("kernels.ll"), "-e", "axpy", "--arg", "0", "--arg", spec, "--arg", "zeros:64",
                     "--out", "x=" + file(out), "--no-print"});
    EXPECT_EQ(r.status, 0) << r.err;
    return readValues<float>(file(out));
  };
  auto a = run("random:64:seed=3", "r1.npy"), b = run("random:64:seed=3", "r2.npy"), c = run("random:64:seed=4", "r3.npy");
  ASSERT_EQ(a.size(), 64u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  // Without a seed, the raw position seeds it (x is raw input 1).
  EXPECT_EQ(run("random:64", "r4.npy"), run("random:64:seed=1", "r5.npy"));
}

TEST_F(CallCli, SignatureForIrWithoutMetadata) {
  auto r = runCli({"call", file("bare.ll"), "--signature", "sum=(memref<?xf32>) -> f32", "--arg", "iota:10"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "45\n");
}

TEST_F(CallCli, BenchmarkPrintsATable) {
  auto r = runCli({"call", file("kernels.ll"), "-e", "axpy", "--arg", "2", "--arg", "ones:1000", "--arg", "zeros:1000",
                   "--benchmark=3", "--warmup=2", "--no-print"});
  ASSERT_EQ(r.status, 0) << r.err;
  // x and y: 2 x 1000 floats.
  EXPECT_NE(r.out.find("benchmark 'axpy': 3 timed calls after 2 warm-ups, 8.00 kB of memrefs per call\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("          min        median     max\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  time    "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  GB/s    "), std::string::npos) << r.out;
}

TEST_F(CallCli, Help) {
  auto r = runCli({"call", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("usage: memjit call FILE.{ll,bc,o} [-e ENTRY] [--arg [NAME=]VALUE]... [options]\n", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("random[:SHAPE][:seed=S]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  --benchmark[=N]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("--entry-point-result"), std::string::npos) << "run's flag, not call's: " << r.out;
  EXPECT_EQ(runCli({"call", file("kernels.ll"), "-h"}).out, r.out);
  auto list = runCli({"help"}).out;
  EXPECT_NE(list.find("  memjit call FILE.{ll,bc,o}"), std::string::npos) << list;
  EXPECT_NE(list.find("call any function of a program file with --arg values"), std::string::npos) << list;
}

// A --signature that agrees with the metadata is the metadata's function,
// input names included.
TEST_F(CallCli, SignatureThatAgreesWithTheMetadata) {
  auto r = runCli({"call", file("kernels.ll"), "--signature", "axpy=(f32, memref<?xf32>, memref<?xf32>) -> f32", "--arg",
                   "y=ones:2", "--arg", "alpha=2", "--arg", "x=iota:2", "--print", "y"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, 2), "1\n") << r.out;
}

// ---------------------------------------------------------------------------
// Diagnostics: exit status 1 (2 for usage) and one line naming what is wrong.

void expectFailure(const std::vector<std::string>& args, int status, const std::vector<std::string>& words) {
  auto r = runCli(args);
  EXPECT_EQ(r.status, status) << r.out << r.err;
  EXPECT_EQ(r.err.rfind("memjit call: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const auto& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << "missing '" << w << "' in " << r.err;
}

std::vector<std::string> axpy(std::vector<std::string> more) {
  std::vector<std::string> args{"call", file("kernels.ll"), "-e", "axpy"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

TEST_F(CallCli, ErrorUnknownArgumentName) {
  expectFailure(axpy({"--arg", "z=1", "--arg", "alpha=1"}), 1, {"no input 'z'", "its inputs: alpha, x, y"});
}

TEST_F(CallCli, ErrorMissingArguments) {
  expectFailure(axpy({"--arg", "2"}), 1, {"'axpy' needs a value for: x (memref<?xf32>), y (memref<?xf32>)"});
}

TEST_F(CallCli, ErrorTooManyPositionalArguments) {
  expectFailure(axpy({"--arg", "2", "--arg", "ones:2", "--arg", "ones:2", "--arg", "1"}), 1,
                {"'axpy' takes 3 inputs (alpha, x, y)", "more positional"});
}

TEST_F(CallCli, ErrorArgumentGivenTwice) {
  expectFailure(axpy({"--arg", "2", "--arg", "alpha=3"}), 1, {"input 'alpha' is given twice ('2' and '3')"});
}

TEST_F(CallCli, ErrorWrongShape) {
  expectFailure({"call", file("kernels.ll"), "-e", "addsip", "--arg", "lhs=ones:4", "--arg", "rhs=ones:3", "--arg", "out=zeros"},
                1, {"input 'lhs' (memref<3xf64>)", "expected size 3 in dim 0", "ones has shape 4"});
  const std::vector<double> two{1, 2};
  writeValues(file("two.npy"), ElementType::F64, {2}, two.data());
  expectFailure({"call", file("kernels.ll"), "-e", "addsip", "--arg", "lhs=" + file("two.npy"), "--arg", "rhs=ones",
                 "--arg", "out=zeros"},
                1, {"input 'lhs'", "expected size 3 in dim 0", "two.npy has shape 2"});
  expectFailure(axpy({"--arg", "1", "--arg", "ones:2x2", "--arg", "ones:2"}), 1,
                {"input 'x' (memref<?xf32>)", "expected rank 1", "ones has shape 2x2 (rank 2)"});
}

TEST_F(CallCli, ErrorWrongElementTypeInNpy) {
  const std::vector<double> two{1, 2};
  writeValues(file("f64.npy"), ElementType::F64, {2}, two.data());
  expectFailure(axpy({"--arg", "1", "--arg", file("f64.npy"), "--arg", "ones:2"}), 1,
                {"input 'x' (memref<?xf32>)", "f64.npy holds f64 elements"});
}

TEST_F(CallCli, ErrorBadNpyFile) {
  std::ofstream(file("bad.npy")) << "not numpy";
  expectFailure(axpy({"--arg", "1", "--arg", file("bad.npy"), "--arg", "ones:2"}), 1,
                {"input 'x'", "bad.npy", "not an npy file"});
  expectFailure(axpy({"--arg", "1", "--arg", file("absent.npy"), "--arg", "ones:2"}), 1,
                {"input 'x'", "absent.npy", "cannot read"});
}

TEST_F(CallCli, ErrorBadLiterals) {
  expectFailure(axpy({"--arg", "two", "--arg", "ones:2", "--arg", "ones:2"}), 1,
                {"input 'alpha' (f32)", "'two' is not a number"});
  expectFailure(axpy({"--arg", "1e40", "--arg", "ones:2", "--arg", "ones:2"}), 1,
                {"input 'alpha' (f32)", "'1e40' is out of range for f32"});
  expectFailure(axpy({"--arg", "1e-50", "--arg", "ones:2", "--arg", "ones:2"}), 1,
                {"input 'alpha' (f32)", "'1e-50' underflows to 0 in f32"});
  expectFailure(axpy({"--arg", "16777217", "--arg", "ones:2", "--arg", "ones:2"}), 1,
                {"argument 'alpha'", "16777217", "not exact in float32"});
  expectFailure({"call", file("kernels.ll"), "-e", "isum", "--arg", "ones:1x1", "--arg", "2.5"}, 1,
                {"argument 'arg1'", "expected sint32, received float 2.5"});
  expectFailure({"call", file("kernels.ll"), "-e", "isum", "--arg", "ones:1x1", "--arg", "4294967296"}, 1,
                {"argument 'arg1'", "4294967296", "out of range"});
  expectFailure({"call", file("kernels.ll"), "-e", "isum", "--arg", "ones:1x1", "--arg", "99999999999999999999"}, 1,
                {"input 'arg1' (i32)", "'99999999999999999999' is out of range"});
}

TEST_F(CallCli, ErrorValueOfTheWrongKind) {
  expectFailure(axpy({"--arg", "zeros:2", "--arg", "ones:2", "--arg", "ones:2"}), 1,
                {"input 'alpha' (f32)", "a scalar takes a literal, not 'zeros:2'"});
  expectFailure(axpy({"--arg", "1", "--arg", "2.5", "--arg", "ones:2"}), 1,
                {"input 'x' (memref<?xf32>)", "a memref takes a .npy file or a generator", "not '2.5'"});
}

TEST_F(CallCli, ErrorBadGenerators) {
  expectFailure(axpy({"--arg", "1", "--arg", "ones", "--arg", "ones:2"}), 1,
                {"input 'x' (memref<?xf32>)", "ones needs a shape here", "e.g. ones:128"});
  expectFailure(axpy({"--arg", "1", "--arg", "ones:2xq", "--arg", "ones:2"}), 1, {"'ones:2xq'", "bad shape '2xq'"});
  expectFailure(axpy({"--arg", "1", "--arg", "zeros:2:seed=1", "--arg", "ones:2"}), 1,
                {"'zeros:2:seed=1'", "only random takes a seed"});
  expectFailure(axpy({"--arg", "1", "--arg", "random:2:seed=x", "--arg", "ones:2"}), 1,
                {"'random:2:seed=x'", "the seed must be a whole number"});
  expectFailure(axpy({"--arg", "1", "--arg", "random:2:3", "--arg", "ones:2"}), 1,
                {"'random:2:3'", "unexpected '3'", "random[:SHAPE][:seed=S]"});
}

TEST_F(CallCli, ErrorFunctionWithoutMetadata) {
  expectFailure({"call", file("bare.ll"), "-e", "sum", "--arg", "iota:3"}, 1,
                {"function 'sum' has no memjit signature metadata", "--signature sum='<function type>'"});
  expectFailure({"call", file("bare.ll"), "--arg", "iota:3"}, 1,
                {"carries no memjit signature metadata", "give -e ENTRY and --signature"});
}

TEST_F(CallCli, ErrorBadSignatureFlag) {
  expectFailure({"call", file("bare.ll"), "--signature", "sum=(memref<?xf32> -> f32", "--arg", "iota:3"}, 1,
                {"--signature sum", "parse error"});
  expectFailure({"call", file("bare.ll"), "--signature", "nothere=(f32) -> f32", "--arg", "1"}, 1,
                {"--signature nothere", "defines no '_mlir_ciface_nothere'"});
  expectFailure({"call", file("bare.ll"), "--signature", "sum", "--arg", "1"}, 2,
                {"--signature needs NAME='<function type>'"});
}

// Called through a C interface of another type, the kernel would read its
// descriptor from the wrong registers: this crashed with SIGSEGV.
TEST_F(CallCli, ErrorSignatureThatDoesNotFitTheIR) {
  expectFailure({"call", file("bare.ll"), "--signature", "sum=(f32) -> f32", "--arg", "3"}, 1,
                {"type mismatch", "--signature sum='(f32) -> f32' does not fit '_mlir_ciface_sum'", "bare.ll",
                 "the C interface of that type is float (float), the IR's is float (ptr)"});
  expectFailure({"call", file("bare.ll"), "--signature", "sum=(memref<?xf32>) -> ()", "--arg", "iota:3"}, 1,
                {"does not fit '_mlir_ciface_sum'", "that type is void (ptr), the IR's is float (ptr)"});
  expectFailure({"call", file("bare.ll"), "--signature", "sum=(memref<?xf32>, i64) -> f32", "--arg", "iota:3",
                 "--arg", "1"},
                1, {"that type is float (ptr, i64), the IR's is float (ptr)"});
  expectFailure({"call", file("bare.ll"), "--signature", "sum=(memref<?xf32>) -> memref<?xf32>", "--arg", "iota:3"}, 1,
                {"that type is void (ptr, ptr), the IR's is float (ptr)"});
}

// With metadata in the file, a --signature of another type (even one with the
// same C interface, as here: a memref's rank lives in its descriptor) would
// call the kernel with the wrong argument layout.
TEST_F(CallCli, ErrorSignatureContradictingTheMetadata) {
  expectFailure({"call", file("kernels.ll"), "--signature", "axpy=(f32, memref<?x?xf32>, memref<?xf32>) -> f32",
                 "--arg", "1", "--arg", "ones:2x2", "--arg", "ones:2"},
                1, {"type mismatch", "--signature axpy='(f32, memref<?x?xf32>, memref<?xf32>) -> f32'",
                    "contradicts the signature metadata in '" + file("kernels.ll") + "'",
                    "gives 'axpy' the type (f32, memref<?xf32>, memref<?xf32>) -> f32"});
  expectFailure({"call", file("kernels.ll"), "-e", "axpy", "--signature", "axpy=(memref<?xf32>) -> ()", "--arg", "ones:2"},
                1, {"--signature axpy='(memref<?xf32>) -> ()' contradicts the signature metadata"});
}

TEST_F(CallCli, ErrorEntryChoice) {
  expectFailure({"call", file("kernels.ll"), "--arg", "1"}, 1,
                {"describes 4 functions (addsip, axpy, isum, scaled)", "choose one with -e ENTRY"});
  expectFailure({"call", file("kernels.ll"), "-e", "nothere", "--arg", "1"}, 1, {"defines no function 'nothere'"});
}

TEST_F(CallCli, ErrorProgramFiles) {
  expectFailure({"call", file("absent.ll"), "--arg", "1"}, 1, {"I/O error", "cannot read", "absent.ll"});
  // Objects load too (jit::loadProgram tells them apart by content): a file
  // that is neither IR nor an object is a parse error naming it.
  std::ofstream(file("k.o")) << "garbage\x7f" "ELF";
  expectFailure({"call", file("k.o"), "--arg", "1"}, 1, {"k.o", "is neither LLVM IR nor an object file"});
  std::ofstream(file("broken.ll")) << "define void @f( {";
  expectFailure({"call", file("broken.ll"), "--arg", "1"}, 1, {"parse error", "broken.ll:1:18: error: expected type"});
  expectFailure({"call", file("kernels.ll"), "--shared-libs=" + file("nolib.so"), "--arg", "1"}, 1,
                {"shared library", "nolib.so", "does not exist"});
}

TEST_F(CallCli, ErrorOutputs) {
  expectFailure(axpy({"--arg", "1", "--arg", "ones:2", "--arg", "ones:2", "--out", "nothere=" + file("o.npy")}), 1,
                {"--out nothere", "'axpy' has no result or input 'nothere'", "1 results; inputs: alpha, x, y"});
  expectFailure({"call", file("kernels.ll"), "-e", "isum", "--arg", "ones:1x1", "--arg", "1", "--out", file("o.npy")}, 1,
                {"--out", "'isum' returns 2 results", "--out KEY="});
  expectFailure(axpy({"--arg", "1", "--arg", "ones:2", "--arg", "ones:2", "--print", "nothere"}), 1,
                {"--print nothere", "no result or input 'nothere'"});
  expectFailure(axpy({"--arg", "1", "--arg", "ones:2", "--arg", "ones:2", "--out", "y=" + file("no/such/dir/y.npy")}), 1,
                {"input 'y'", "cannot open", "no/such/dir/y.npy"});
}

TEST_F(CallCli, UsageErrors) {
  expectFailure({"call", "--arg", "1"}, 2, {"expects a program file (.ll, .bc or .o)"});
  expectFailure({"call", file("kernels.ll"), "--entry-point-result=void"}, 2,
                {"unknown option '--entry-point-result=void'", "see memjit call --help"});
  expectFailure({"call", file("kernels.ll"), "--no-print=yes"}, 2, {"--no-print takes no value"});
  expectFailure({"call", file("kernels.ll"), "--arg", "1", "--frobnicate"}, 2, {"unknown option '--frobnicate'"});
  expectFailure({"call", file("kernels.ll"), file("single.ll"), "--arg", "1"}, 2, {"expects one program file"});
  expectFailure({"call", file("kernels.ll"), "--benchmark=0"}, 2, {"--benchmark needs a whole number >= 1, got '0'"});
  expectFailure({"call", file("kernels.ll"), "--benchmark", "--warmup=-1"}, 2, {"--warmup needs a whole number >= 0"});
  expectFailure({"call", file("kernels.ll"), "--arg"}, 2, {"--arg needs a value"});
  expectFailure({"call", file("kernels.ll"), "--arg", "x="}, 2, {"--arg x=: the value is empty"});
  expectFailure({"call", file("kernels.ll"), "--out", "x="}, 2, {"--out x=: the path is empty"});
  expectFailure({"call", file("kernels.ll"), "--no-print", "--print-results"}, 2, {"contradict"});
}

}  // namespace
}  // namespace memjit
