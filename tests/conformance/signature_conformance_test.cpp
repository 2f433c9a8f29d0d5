// memjit's lowered signatures against what the real mlir-opt | mlir-translate (of LLVM's version)
// produce: for every function type of a corpus, the LLVM function type of the
// function and of its `_mlir_ciface_` interface, the linkage of external
// functions' bodies, and the noalias/align attributes of interface pointers.
#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/function_lowering.h"
#include "memjit/type_syntax.h"
#include "support/mlir_tools.h"

namespace memjit::codegen {
namespace {

struct Case {
  const char* type;
  bool external = false;
  ArgumentAttributes firstArg{};  // applied to input #0 when it is a memref
};

// Every element type, ranks 0-4, static/dynamic/mixed dims, strided layouts,
// unranked, memory spaces, 0/1/many results, scalars mixed with memrefs.
const std::vector<Case> kCorpus = {
    {"() -> ()"},
    {"(i1, i8, i16, i32, i64) -> i64"},
    {"(si8, si16, si32, si64) -> si32"},
    {"(ui8, ui16, ui32, ui64) -> ui64"},
    {"(f16, bf16, f32, f64) -> (f64, f32)"},
    {"(index) -> index"},
    {"(i32) -> (i32, i32)"},
    {"(memref<f32>) -> ()"},
    {"(memref<f64>) -> memref<f64>"},
    {"(memref<?xf32>, memref<4x?xf32>, index) -> f32", false, {true, 16}},
    {"(memref<?x?xf32>) -> memref<?x?xf32>"},
    {"(memref<?xf32>, i32) -> (memref<?xf32>, i32, f64)"},
    {"(memref<*xf32>) -> memref<*xf32>"},
    {"(memref<*xf32>) -> (memref<*xf32>, memref<*xi8>)"},
    {"(memref<2x3x4x5xf32>) -> ()", false, {true, 64}},
    {"(memref<?x?x?x?xf64>) -> memref<?x?x?x?xf64>"},
    {"(memref<1x?x3xi32>, memref<?x2x?x4xi64>) -> i1"},
    {"(memref<?xi1>, memref<?xi8>, memref<?xi16>) -> ()"},
    {"(memref<8xsi8>, memref<8xui16>, memref<8xsi32>, memref<8xui64>) -> ()"},
    {"(memref<?xf16>, memref<?xbf16>) -> memref<?xf16>"},
    {"(memref<?xindex>) -> memref<?xindex>"},
    {"(memref<?x?xf32, strided<[?, 1], offset: ?>>) -> f32"},
    {"(memref<4x4xf32, strided<[1, 4]>>) -> memref<4x4xf32, strided<[1, 4]>>"},
    {"(memref<?x?xf64, strided<[?, ?], offset: ?>>, f64) -> ()"},
    {"(memref<3xf32, strided<[2], offset: 5>>) -> memref<3xf32, strided<[2], offset: 5>>"},
    {"(memref<?xf32, 1>, memref<?x?xf32, 3>) -> memref<?xf32, 1>"},
    {"(memref<*xf32, 2>) -> ()"},
    {"(memref<4xf32, 5>, memref<f32, 7>) -> (memref<f32, 7>, f32)"},
    {"(memref<?xcomplex<f32>>) -> memref<?xcomplex<f64>>"},
    {"(complex<f32>) -> complex<f64>"},
    {"(i32, memref<?xf32>, f32, memref<*xi32>, index) -> (index, memref<2x?xf32>, i8)"},
    {"(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()", false, {true, 32}},
    {"(memref<16x16xf32>, memref<16x16xf32>) -> memref<16x16xf32>"},
    {"(f32) -> memref<*xf32>"},
    {"() -> (memref<?xf32>, memref<*xf64>, i64)"},
    // External functions: a private body over a declared C interface.
    {"(memref<?x?xf32>) -> ()", true},
    {"(memref<?xf32>, i32) -> (memref<?xf32>, i32)", true, {true, 16}},
    {"(memref<*xi32>, memref<f32>) -> memref<2xf64>", true},
    {"(i32, f64) -> f32", true},
    {"(i32) -> (i64, f32)", true},
    {"(memref<?x?xf32, strided<[?, 1], offset: ?>>, memref<*xf32>, i32) -> (memref<2xf64>, i32)", true},
    {"(memref<?xf32, 3>) -> memref<?xf32, 3>", true},
    {"() -> memref<*xf32>", true},
    {"(memref<1x2x3x4xi8>) -> index", true},
};

std::string typeText(llvm::Type* t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t->print(os);
  return os.str();
}

std::string join(const std::vector<Type>& ts, const std::string& prefix, bool named) {
  std::string out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (i) out += ", ";
    if (named) out += prefix + std::to_string(i) + ": ";
    out += toString(ts[i]);
  }
  return out;
}

std::string attrText(const Case& c, const FunctionType& t) {
  if (t.inputs.empty() || !isMemRef(t.inputs[0])) return "";
  std::string a;
  if (c.firstArg.noalias) a += "llvm.noalias";
  if (c.firstArg.alignment) a += (a.empty() ? "" : ", ") + std::string("llvm.align = ") + std::to_string(c.firstArg.alignment) + " : i64";
  return a.empty() ? "" : " {" + a + "}";
}

// The MLIR module for the corpus. Defined functions get their results from
// private producers so any result type can be returned.
std::string mlirModule(const std::vector<Case>& corpus, const std::vector<FunctionType>& types) {
  std::string m = "module {\n";
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const FunctionType& t = types[i];
    std::string name = "f" + std::to_string(i);
    std::string args;
    for (std::size_t a = 0; a < t.inputs.size(); ++a) {
      if (a) args += ", ";
      args += (corpus[i].external ? "" : "%a" + std::to_string(a) + ": ") + toString(t.inputs[a]);
      if (a == 0) args += attrText(corpus[i], t);
    }
    std::string results = "(" + join(t.results, "", false) + ")";
    if (corpus[i].external) {
      m += "func.func private @" + name + "(" + args + ") -> " + results + " attributes {llvm.emit_c_interface}\n";
      continue;
    }
    std::string body, rets;
    for (std::size_t r = 0; r < t.results.size(); ++r) {
      std::string mk = "mk" + std::to_string(i) + "_" + std::to_string(r);
      m += "func.func private @" + mk + "() -> " + toString(t.results[r]) + "\n";
      body += "  %r" + std::to_string(r) + " = func.call @" + mk + "() : () -> " + toString(t.results[r]) + "\n";
      rets += (r ? ", %r" : "%r") + std::to_string(r);
    }
    m += "func.func @" + name + "(" + args + ") -> " + results + " attributes {llvm.emit_c_interface} {\n" + body +
         "  return" + (t.results.empty() ? "" : " " + rets + " : " + join(t.results, "", false)) + "\n}\n";
  }
  return m + "}\n";
}

std::string paramAttrs(const llvm::Function* f) {
  std::string s;
  for (unsigned i = 0; i < f->arg_size(); ++i) {
    const llvm::Argument* a = f->getArg(i);
    s += "#" + std::to_string(i) + (a->hasNoAliasAttr() ? " noalias" : "");
    if (auto al = a->getParamAlign()) s += " align " + std::to_string(al->value());
    s += ";";
  }
  return s;
}

void checkCorpus(const std::vector<Case>& corpus, const LoweringOptions& lowering) {
  std::string missing = test::missingMlirTools();
  if (!missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << "MLIR tools absent, conformance not checked: " << missing;

  std::vector<FunctionType> types;
  Module ours("conformance");
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    auto t = parseFunctionType(corpus[i].type);
    ASSERT_TRUE(t.ok()) << corpus[i].type << ": " << t.error().str();
    types.push_back(*t);
    FunctionOptions o;
    o.lowering = lowering;
    if (!t->inputs.empty()) {
      o.arguments.assign(t->inputs.size(), {});
      o.arguments[0] = corpus[i].firstArg;
    }
    std::string name = "f" + std::to_string(i);
    if (corpus[i].external) {
      auto lf = declareExternalFunction(ours, name, *t, o);
      ASSERT_TRUE(lf.ok()) << corpus[i].type << ": " << lf.error().str();
    } else {
      auto lf = defineFunction(ours, name, *t, o);
      ASSERT_TRUE(lf.ok()) << corpus[i].type << ": " << lf.error().str();
      ASSERT_FALSE(emitZeroBody(ours, name));
    }
  }
  ASSERT_FALSE(ours.verify());

  std::string mlir = mlirModule(corpus, types);
  auto ir = test::lowerWithMlir(mlir, {lowering.indexBitwidth, lowering.barePtr});
  ASSERT_TRUE(ir.ok()) << ir.error().str() << "\n" << mlir;
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> theirs = llvm::parseAssemblyString(*ir, diag, ctx);
  ASSERT_TRUE(theirs) << diag.getMessage().str();

  std::size_t compared = 0;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    for (std::string name : {"f" + std::to_string(i), "_mlir_ciface_f" + std::to_string(i)}) {
      SCOPED_TRACE(std::string(corpus[i].type) + (corpus[i].external ? " (external) " : " ") + name);
      const llvm::Function* mine = ours.llvm().getFunction(name);
      const llvm::Function* ref = theirs->getFunction(name);
      ASSERT_EQ(mine == nullptr, ref == nullptr) << "presence differs";
      if (!ref) continue;
      ++compared;
      EXPECT_EQ(typeText(mine->getFunctionType()), typeText(ref->getFunctionType()));
      EXPECT_EQ(mine->isDeclaration(), ref->isDeclaration());
      EXPECT_EQ(mine->getLinkage(), ref->getLinkage());
      if (name.rfind("_mlir_ciface_", 0) == 0) {
        EXPECT_EQ(paramAttrs(mine), paramAttrs(ref));
      }
    }
  }
  // Every function and (except with bare pointers) every interface was compared.
  EXPECT_EQ(compared, corpus.size() * (lowering.barePtr ? 1 : 2));
}

TEST(SignatureConformance, CorpusIsLargeEnough) { EXPECT_GE(kCorpus.size(), 40u); }

TEST(SignatureConformance, MatchesMlir) { checkCorpus(kCorpus, {}); }

TEST(SignatureConformance, MatchesMlirWithIndexBitwidth32) {
  checkCorpus(kCorpus, LoweringOptions{32, false});
}

TEST(SignatureConformance, BarePointersMatchMlirForStaticShapes) {
  std::vector<Case> statics = {
      {"(memref<4xf32>, memref<2x3xi8, 1>, index) -> memref<4xf32>"},
      {"(memref<f64>) -> ()"},
      {"(memref<3xf32, strided<[2], offset: 5>>) -> f32"},
      {"(memref<2x2xf32>) -> (memref<2x2xf32>, i32)"},
      {"(memref<4xf32>) -> index", true},
  };
  checkCorpus(statics, LoweringOptions{64, true});
}

}  // namespace
}  // namespace memjit::codegen
