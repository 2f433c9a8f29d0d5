// The builder's atomics against MLIR's own lowering (of LLVM's version) of
// the ops they are named after: the `atomicrmw` or `cmpxchg` instruction that
// mlir-opt --finalize-memref-to-llvm ... and mlir-translate make for
// memref.atomic_rmw / memref.generic_atomic_rmw equals memjit's, value names
// aside (operation, type, ordering, alignment).
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"
#include "support/mlir_tools.h"

namespace memjit {
namespace {

using codegen::AtomicKind;
using codegen::FunctionBuilder;
using codegen::Value;

// The first line of `ir` holding `what`, from `what` on, without value names.
std::string instruction(const std::string& ir, const std::string& what) {
  const std::size_t at = ir.find(what);
  if (at == std::string::npos) return "no " + what + " in:\n" + ir;
  const std::string line = ir.substr(at, ir.find('\n', at) - at);
  return std::regex_replace(line, std::regex("%[A-Za-z0-9_.]+"), "%");
}

std::string memjitIr(const std::function<void(FunctionBuilder&)>& body, const char* type) {
  codegen::Module m("atomics");
  FunctionBuilder b(m, "f", *parseFunctionType(type));
  body(b);
  EXPECT_FALSE(b.finish());
  std::string ir;
  llvm::raw_string_ostream os(ir);
  m.llvm().print(os, nullptr);
  return ir;
}

TEST(AtomicsConformance, AtomicRmwMatchesMlirsLowering) {
  const std::string missing = test::missingMlirTools();
  if (!missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << "MLIR tools absent, atomics not compared: " << missing;
  // The kinds MemRefToLLVM lowers to one atomicrmw (the others go through memref-expand's generic form).
  const std::pair<const char*, AtomicKind> kinds[] = {
      {"addi", AtomicKind::Addi}, {"andi", AtomicKind::Andi}, {"ori", AtomicKind::Ori},
      {"maxs", AtomicKind::Maxs}, {"maxu", AtomicKind::Maxu}, {"mins", AtomicKind::Mins},
      {"minu", AtomicKind::Minu}, {"assign", AtomicKind::Assign}, {"addf", AtomicKind::Addf}};
  for (auto [name, kind] : kinds) {
    const std::string t = std::string(name) == "addf" ? "f32" : "i32";
    const std::string mlir = "func.func @f(%m: memref<?x" + t + ">, %v: " + t + ", %i: index) -> " + t +
                             " {\n  %r = memref.atomic_rmw " + name + " %v, %m[%i] : (" + t + ", memref<?x" + t +
                             ">) -> " + t + "\n  return %r : " + t + "\n}\n";
    auto theirs = test::lowerWithMlir(mlir);
    ASSERT_TRUE(theirs) << theirs.error().str();
    const std::string ours = memjitIr([&](FunctionBuilder& b) { b.ret({b.atomicRMW(kind, b.arg(1), b.arg(0), {b.arg(2)})}); },
                                      ("(memref<?x" + t + ">, " + t + ", index) -> " + t).c_str());
    EXPECT_EQ(instruction(ours, "atomicrmw"), instruction(*theirs, "atomicrmw")) << name;
  }
}

TEST(AtomicsConformance, GenericAtomicRmwExchangesAsMlirDoes) {
  const std::string missing = test::missingMlirTools();
  if (!missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << "MLIR tools absent, atomics not compared: " << missing;
  auto theirs = test::lowerWithMlir(R"(
func.func @f(%m: memref<?xi64>, %v: i64, %i: index) -> i64 {
  %r = memref.generic_atomic_rmw %m[%i] : memref<?xi64> {
  ^bb0(%cur : i64):
    %s = arith.muli %cur, %v : i64
    memref.atomic_yield %s : i64
  }
  return %r : i64
}
)",
                                    {.firstPasses = "--convert-arith-to-llvm"});  // the body first, or the op stays
  ASSERT_TRUE(theirs) << theirs.error().str();
  const std::string ours = memjitIr(
      [](FunctionBuilder& b) {
        b.ret({b.genericAtomicRMW(b.arg(0), {b.arg(2)}, [&](Value cur) { return b.mul(cur, b.arg(1)); })});
      },
      "(memref<?xi64>, i64, index) -> i64");
  EXPECT_EQ(instruction(ours, "cmpxchg"), instruction(*theirs, "cmpxchg"));
}

}  // namespace
}  // namespace memjit
