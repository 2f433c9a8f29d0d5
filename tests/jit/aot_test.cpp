// Tests of ahead-of-time emission (aot.h): every output kind, cross targets,
// external declarations, and headers that compile with only memjit::runtime.
#include "support/files.h"
#include "memjit/jit/aot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include "memjit/codegen/kernels.h"
#include "memjit/codegen/module.h"
#include "memjit/type_syntax.h"
#include "support/ir_snippets.h"
#include "support/types.h"

using namespace memjit;
using namespace memjit::jit;

using memjit::test::elfMachine;
using memjit::test::readFile;

namespace {

std::filesystem::path freshDir(const std::string& name) { return test::freshDir("jit/aot/" + name); }

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext& context, const std::string& ir) {
  llvm::SMDiagnostic diagnostic;
  auto module = llvm::parseIR(llvm::MemoryBufferRef(ir, "test"), diagnostic, context);
  EXPECT_TRUE(module != nullptr) << diagnostic.getMessage().str();
  return module;
}

// The signatures of (name, type) pairs; a type that does not parse ends the test.
std::vector<signature::FunctionSignature> describeAll(
    const std::vector<std::pair<std::string, std::string>>& functions) {
  std::vector<signature::FunctionSignature> signatures;
  for (const auto& [name, type] : functions)
    signatures.push_back(test::valueOrFail(signature::describe(name, test::functionType(type)), name));
  return signatures;
}

// Compiles `source` (dir/use.cpp) with nothing but the include directory the
// runtime exports, by the compiler that built this test; its exit status, and
// its errors in dir/errors.txt.
int compileWithOnlyTheRuntime(const std::filesystem::path& dir, const std::string& source) {
  std::ofstream(dir / "use.cpp") << source;
  const std::string command = std::string("c++ -std=c++20 -fsyntax-only -I") + MEMJIT_SOURCE_DIR + "/include -I" +
                              dir.string() + " " + (dir / "use.cpp").string() + " 2> " +
                              (dir / "errors.txt").string();
  return std::system(command.c_str());
}

}  // namespace

TEST(Aot, WritesObjectAssemblyIRBitcodeAndHeader) {
  auto dir = freshDir("all");
  codegen::Module module("kernels");
  ASSERT_FALSE(codegen::addElementwiseAdd(module, "add"));
  ASSERT_FALSE(codegen::addSum(module, "sum"));
  AotOutputs out{(dir / "k.o").string(), (dir / "k.s").string(), (dir / "k.ll").string(),
                 (dir / "k.bc").string(), (dir / "k.h").string()};
  Error e = compileAhead(module, out);
  ASSERT_FALSE(e) << e.str();
  EXPECT_EQ(elfMachine(readFile(out.object)), 62);  // EM_X86_64 on this host
  EXPECT_NE(readFile(out.assembly).find("_mlir_ciface_add:"), std::string::npos);
  EXPECT_NE(readFile(out.ir).find("define void @_mlir_ciface_add"), std::string::npos);
  EXPECT_EQ(readFile(out.bitcode).substr(0, 2), "BC");
  const std::string header = readFile(out.header);
  EXPECT_NE(header.find("void _mlir_ciface_add(memjit::runtime::StridedMemRef<float, 1>* arg0"),
            std::string::npos);
  EXPECT_NE(header.find("float _mlir_ciface_sum(memjit::runtime::StridedMemRef<float, 1>* arg0)"),
            std::string::npos);
  EXPECT_NE(header.find("extern const char _memjit_type_sum[];"), std::string::npos);
  EXPECT_NE(header.find("namespace kernels"), std::string::npos);
}

TEST(Aot, CrossCompilesForAnotherTriple) {
  auto dir = freshDir("cross");
  llvm::LLVMContext context;
  auto module = parse(context, test::addKernelIR());
  AotOptions options;
  options.target = {"aarch64-unknown-linux-gnu", "generic", "+neon"};
  AotOutputs out;
  out.object = (dir / "k.o").string();
  out.assembly = (dir / "k.s").string();
  Error e = compileAhead(*module, out, options);
  ASSERT_FALSE(e) << e.str();
  EXPECT_EQ(elfMachine(readFile(out.object)), 183);  // EM_AARCH64
  EXPECT_NE(readFile(out.assembly).find("ret"), std::string::npos);
}

TEST(Aot, ExternalDeclarationsStayUndefined) {
  auto dir = freshDir("extern");
  llvm::LLVMContext context;
  auto module = parse(context, test::callerIR("caller", "defined_elsewhere"));
  AotOutputs out;
  out.object = (dir / "k.o").string();
  out.header = (dir / "k.h").string();
  ASSERT_FALSE(compileAhead(*module, out));
  const std::string object = readFile(out.object);
  EXPECT_NE(object.find("defined_elsewhere"), std::string::npos);
}

TEST(Aot, HeaderDescribesResultsAndCompilesWithOnlyTheRuntime) {
  auto dir = freshDir("header");
  auto header = generateHeader(describeAll({{"scalar", "(i32, f64, index, i1) -> i64"},
                                            {"ranked", "(memref<?x4xf32>) -> memref<?x?xf32>"},
                                            {"multi", "(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)"},
                                            {"unranked", "(memref<*xf32>) -> memref<*xf32>"},
                                            {"rank0", "(memref<f64>, memref<?xcomplex<f32>>) -> ()"}}),
                               {.cppNamespace = "gen", .moduleName = "m"});
  ASSERT_TRUE(header.ok()) << header.error().str();
  EXPECT_NE(header->find("std::int64_t _mlir_ciface_scalar(std::int32_t arg0, double arg1, "
                         "std::int64_t arg2, bool arg3)"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("void _mlir_ciface_ranked(memjit::runtime::StridedMemRef<float, 2>* result, "
                         "memjit::runtime::StridedMemRef<float, 2>* arg0)"),
            std::string::npos);
  EXPECT_NE(header->find("struct multi_results {\n  memjit::runtime::StridedMemRef<float, 1> r0;\n"
                         "  std::int32_t r1;\n  double r2;\n};"),
            std::string::npos);
  EXPECT_NE(header->find("void _mlir_ciface_unranked(memjit::runtime::UnrankedMemRef<float>* result, "
                         "memjit::runtime::UnrankedMemRef<float>* arg0)"),
            std::string::npos);
  EXPECT_NE(header->find("memjit::runtime::StridedMemRef<double, 0>* arg0"), std::string::npos);

  // Compile a user of the header with nothing but the include directory the
  // runtime exports (the compiler that built this test).
  std::ofstream(dir / "gen.h") << *header;
  EXPECT_EQ(compileWithOnlyTheRuntime(dir, "#include \"gen.h\"\n"
                                             "int main() { return gen::findFunction(\"multi\") ? 0 : 1; }\n"),
            0)
      << readFile(dir / "errors.txt");
}

TEST(Aot, HeaderSpellsHalfPrecisionWithMemjitTypes) {
  auto dir = freshDir("half");
  auto header = generateHeader(describeAll({{"hscalar", "(f16, bf16, f32) -> f16"},
                                            {"hbuffers", "(memref<?xf16>, memref<*xbf16>) -> (memref<?xbf16>, f16)"}}),
                               {.cppNamespace = "gen", .moduleName = "m"});
  ASSERT_TRUE(header.ok()) << header.error().str();
  // By value: the carrier the C ABI needs; in memory: the value types.
  EXPECT_NE(header->find("memjit::f16::abi_type _mlir_ciface_hscalar(memjit::f16::abi_type arg0, "
                         "memjit::bf16::abi_type arg1, float arg2)"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("struct hbuffers_results {\n  memjit::runtime::StridedMemRef<memjit::bf16, 1> r0;\n"
                         "  memjit::f16 r1;\n};"),
            std::string::npos)
      << *header;
  EXPECT_NE(header->find("memjit::runtime::StridedMemRef<memjit::f16, 1>* arg0, "
                         "memjit::runtime::UnrankedMemRef<memjit::bf16>* arg1"),
            std::string::npos);
  EXPECT_EQ(header->find("uint16_t"), std::string::npos);
  std::ofstream(dir / "gen.h") << *header;
  EXPECT_EQ(compileWithOnlyTheRuntime(dir, "#include \"gen.h\"\n"
                                             "static_assert(sizeof(gen::hbuffers_results) == 48);\n"
                                             "int main() { return gen::findFunction(\"hscalar\") ? 0 : 1; }\n"),
            0)
      << readFile(dir / "errors.txt");
}

TEST(Aot, CInterfaceTypeSpellsTheCallableType) {
  auto type = parseFunctionType("(f32, memref<?xf32>) -> f32");
  ASSERT_TRUE(type.ok());
  auto sig = signature::describe("f", *type);
  ASSERT_TRUE(sig.ok());
  auto text = cInterfaceType(*sig);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "float(float, memjit::runtime::StridedMemRef<float, 1>*)");
}
