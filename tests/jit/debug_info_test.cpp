// Tests of FunctionOptions::debugInfo: each instruction at the generator line
// that built it, nothing without it, the IR valid before and after every
// optimisation level, the same results and the same machine code, and AOT
// objects whose line table names the generator's file. Also IR with debug
// info memjit did not build (MLIR's locations) through Jit::addIR.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/SourceMgr.h>

#include "memjit/codegen/builder.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/files.h"
#include "support/mlir.h"
#include "support/mlir_locations.h"

using namespace memjit;
using codegen::Value;

namespace {

// Lines of this file where the kernel below builds its operations.
struct Lines {
  unsigned builder = 0, loop = 0, multiply = 0, store = 0, parallel = 0, parallelAdd = 0;
};

// out[i] = alpha * x[i] (serial loop), then out[i] += 1 (parallel loop).
Lines buildKernel(codegen::Module& m, bool debugInfo, bool checked = false) {
  Lines lines;
  codegen::FunctionOptions o;
  o.debugInfo = debugInfo;
  o.checked = checked;
  o.noalias = true;
  o.argumentNames = {"alpha", "x", "out"};
  lines.builder = __LINE__ + 1;
  codegen::FunctionBuilder b(m, "scale", *parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> ()"), o);
  Value alpha = b.arg(0), x = b.arg(1), out = b.arg(2);
  lines.loop = __LINE__ + 1;
  b.forLoop(b.index(0), b.dim(x, 0), b.index(1), [&](Value i) {
    lines.multiply = __LINE__ + 1;
    Value v = alpha * b.load(x, {i});
    b.name(v, "scaled");
    lines.store = __LINE__ + 1;
    b.store(v, out, {i});
  });
  lines.parallel = __LINE__ + 1;
  b.parallelFor(b.index(0), b.dim(out, 0), b.index(1), {}, [&](Value i) {
    lines.parallelAdd = __LINE__ + 1;
    b.store(b.load(out, {i}) + 1.0f, out, {i});
  });
  b.ret();
  EXPECT_FALSE(b.finish());
  return lines;
}

// Lines of this file where the vector kernel below builds its operations.
struct VectorLines {
  unsigned splat = 0, loop = 0, load = 0, add = 0, multiply = 0, store = 0, mask = 0, maskedLoad = 0,
           maskedStore = 0, sum = 0, reduce = 0;
};

// out[i] = alpha * x[i] and returns the sum of x, 8 lanes at a time: whole
// vectors in a loop, the tail through a mask, the lanes added by a reduce.
VectorLines buildVectorKernel(codegen::Module& m, bool debugInfo) {
  using Reduction = codegen::FunctionBuilder::VectorReduction;
  VectorLines lines;
  codegen::FunctionOptions o;
  o.debugInfo = debugInfo;
  o.noalias = true;
  codegen::FunctionBuilder b(m, "vscale", *parseFunctionType("(f32, memref<?xf32>, memref<?xf32>) -> f32"), o);
  Value x = b.arg(1), out = b.arg(2);
  Value n = b.dim(x, 0);
  Value whole = b.sub(n, b.rem(n, b.index(8)));
  lines.splat = __LINE__ + 1;
  Value alpha = b.splat(b.arg(0), 8), zero = b.splat(b.f32(0), 8);
  lines.loop = __LINE__ + 1;  // the vector accumulator's phi
  std::vector<Value> sum = b.forLoop(b.index(0), whole, b.index(8), {zero}, [&](Value i, const std::vector<Value>& acc) {
    lines.load = __LINE__ + 1;
    Value v = b.vectorLoad(x, {i}, 8);
    lines.multiply = __LINE__ + 1;
    Value scaled = alpha * v;
    b.name(scaled, "scaled");
    lines.store = __LINE__ + 1;
    b.vectorStore(scaled, out, {i});
    lines.add = __LINE__ + 1;
    return std::vector<Value>{acc[0] + v};
  });
  lines.mask = __LINE__ + 1;
  Value mask = b.createMask(8, n - whole);
  lines.maskedLoad = __LINE__ + 1;
  Value tail = b.maskedLoad(x, {whole}, mask, zero);
  lines.maskedStore = __LINE__ + 1;
  b.maskedStore(alpha * tail, out, {whole}, mask);
  lines.sum = __LINE__ + 1;
  Value total = sum[0] + tail;
  lines.reduce = __LINE__ + 1;
  b.ret({b.reduce(Reduction::Add, total)});
  EXPECT_FALSE(b.finish()) << b.error().str();
  return lines;
}

// Whether `inst` makes or uses a vector (a masked store makes none).
bool touchesVectors(const llvm::Instruction& inst) {
  if (inst.getType()->isVectorTy()) return true;
  for (const llvm::Use& operand : inst.operands())
    if (operand->getType()->isVectorTy()) return true;
  return false;
}

// The line of the first instruction with `opcode` in `f` that makes or uses a vector, or 0.
unsigned vectorLineOf(const llvm::Function& f, unsigned opcode) {
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& inst : block)
      if (inst.getOpcode() == opcode && touchesVectors(inst))
        return inst.getDebugLoc() ? inst.getDebugLoc().getLine() : 0;
  return 0;
}

// The intrinsic `inst` calls, or not_intrinsic.
llvm::Intrinsic::ID intrinsicOf(const llvm::Instruction& inst) {
  const auto* call = llvm::dyn_cast<llvm::CallInst>(&inst);
  return call && call->getCalledFunction() ? call->getCalledFunction()->getIntrinsicID()
                                           : llvm::Intrinsic::not_intrinsic;
}

bool fromThisFile(const llvm::DILocation* loc) {
  return loc && loc->getFilename().ends_with("debug_info_test.cpp");
}

// The line of the first instruction with `opcode` in `f`, or 0.
unsigned lineOf(const llvm::Function& f, unsigned opcode) {
  for (const llvm::BasicBlock& block : f)
    for (const llvm::Instruction& inst : block)
      if (inst.getOpcode() == opcode) return inst.getDebugLoc() ? inst.getDebugLoc().getLine() : 0;
  return 0;
}

std::string text(const std::string& path) {
  auto object = llvm::object::ObjectFile::createObjectFile(path);
  if (!object) {
    llvm::consumeError(object.takeError());
    return "";
  }
  std::string out;
  for (const llvm::object::SectionRef& section : object->getBinary()->sections()) {
    auto name = section.getName();
    auto contents = section.getContents();
    if (name && contents && section.isText()) out += name->str() + ":" + contents->str();
    if (!name) llvm::consumeError(name.takeError());
    if (!contents) llvm::consumeError(contents.takeError());
  }
  return out;
}

// compileAhead of `m` at `level` into base.o and base.ll: `ir` gets the
// optimised IR read back (and verified), `object` the object file's bytes.
void compileAheadAt(codegen::Module& m, int level, const std::string& base, llvm::LLVMContext& context,
                    std::unique_ptr<llvm::Module>& ir, std::string& object) {
  jit::AotOptions options;
  options.optLevel = static_cast<jit::OptLevel>(level);
  Error e = jit::compileAhead(m, {.object = base + ".o", .ir = base + ".ll"}, options);
  ASSERT_FALSE(e) << e.str();
  llvm::SMDiagnostic diagnostic;
  ir = llvm::parseIRFile(base + ".ll", diagnostic, context);
  ASSERT_TRUE(ir) << diagnostic.getMessage().str();
  std::string report;
  llvm::raw_string_ostream os(report);
  EXPECT_FALSE(llvm::verifyModule(*ir, &os)) << "O" << level << ": " << report;
  object = text(base + ".o");
  ASSERT_FALSE(object.empty());
}

}  // namespace

TEST(DebugInfo, EachInstructionIsAtTheGeneratorLineThatBuiltIt) {
  codegen::Module m("lines");
  const Lines lines = buildKernel(m, true);
  ASSERT_FALSE(m.verify());
  llvm::Module& ir = m.llvm();
  EXPECT_TRUE(ir.getModuleFlag("Debug Info Version"));
  EXPECT_TRUE(ir.getModuleFlag("Dwarf Version"));
  llvm::Function* f = ir.getFunction("scale");
  ASSERT_TRUE(f && f->getSubprogram());
  EXPECT_EQ(f->getSubprogram()->getLine(), lines.builder);
  EXPECT_TRUE(ir.getFunction("_mlir_ciface_scale")->getSubprogram());
  EXPECT_EQ(lineOf(*f, llvm::Instruction::FMul), lines.multiply);  // an operator's line
  EXPECT_EQ(lineOf(*f, llvm::Instruction::Store), lines.store);
  EXPECT_EQ(lineOf(*f, llvm::Instruction::PHI), lines.loop);  // the loop's own code
  // Every instruction is located, in this file, within the function's scope.
  for (llvm::Function& fn : ir)
    for (llvm::BasicBlock& block : fn)
      for (llvm::Instruction& inst : block) {
        if (!fn.getSubprogram()) continue;
        EXPECT_TRUE(fromThisFile(inst.getDebugLoc().get())) << fn.getName().str() << ": " << inst.getOpcodeName();
      }
  // The outlined parallel body: its own subprogram, the body's lines.
  bool parallelBody = false;
  for (llvm::Function& fn : ir)
    if (fn.getName().starts_with("scale.parallel") && !fn.isDeclaration()) {
      ASSERT_TRUE(fn.getSubprogram()) << fn.getName().str();
      EXPECT_EQ(fn.getSubprogram()->getLine(), lines.parallel);
      parallelBody = lineOf(fn, llvm::Instruction::FAdd) == lines.parallelAdd;
    }
  EXPECT_TRUE(parallelBody);
}

TEST(DebugInfo, ArgumentsAndNamedValuesAreVariables) {
  codegen::Module m("variables");
  buildKernel(m, true);
  std::vector<std::string> names;
  for (llvm::BasicBlock& block : *m.llvm().getFunction("scale"))
    for (llvm::Instruction& inst : block)
      for (llvm::DbgVariableRecord& record : llvm::filterDbgVars(inst.getDbgRecordRange()))
        names.push_back(record.getVariable()->getName().str());
  for (const char* name : {"alpha", "x", "out", "scaled"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  // x's descriptor: 5 fields for rank 1, each a piece of the one variable.
  EXPECT_EQ(std::count(names.begin(), names.end(), "x"), 5);
}

TEST(DebugInfo, OffLeavesNoDebugMetadata) {
  codegen::Module m("plain");
  buildKernel(m, false);
  llvm::Module& ir = m.llvm();
  EXPECT_FALSE(ir.getNamedMetadata("llvm.dbg.cu"));
  EXPECT_FALSE(ir.getModuleFlag("Debug Info Version"));
  for (llvm::Function& fn : ir) {
    EXPECT_FALSE(fn.getSubprogram()) << fn.getName().str();
    for (llvm::BasicBlock& block : fn)
      for (llvm::Instruction& inst : block) EXPECT_FALSE(inst.getDebugLoc()) << inst.getOpcodeName();
  }
}

TEST(DebugInfo, AFailedFunctionTakesItsCompileUnitWithIt) {
  codegen::Module m("failing");
  buildKernel(m, true);
  {
    codegen::FunctionOptions o;
    o.debugInfo = true;
    codegen::FunctionBuilder b(m, "bad", *parseFunctionType("(f32, i32) -> ()"), o);
    b.add(b.arg(0), b.arg(1));  // type mismatch: the function is removed
    EXPECT_TRUE(b.finish());
  }
  EXPECT_FALSE(m.llvm().getFunction("bad"));
  EXPECT_EQ(m.llvm().getNamedMetadata("llvm.dbg.cu")->getNumOperands(), 1u);
  EXPECT_FALSE(m.verify());
}

// A function that fails in the middle of a parallel body leaves blocks
// without terminators, whose debug records LLVM keeps aside per block:
// they must go with the function, or a later block allocated at the same
// address inherits records of freed metadata (issue 24: "DICompileUnit not
// listed in llvm.dbg.cu", then a crash within a few dozen modules).
TEST(DebugInfo, AFunctionFailingInAParallelBodyLeavesTheModuleValid) {
  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O0});
  ASSERT_TRUE(jit) << jit.error().str();
  for (int round = 0; round < 50; ++round) {
    codegen::Module m("failing_parallel_" + std::to_string(round));
    codegen::FunctionOptions o;
    o.debugInfo = true;
    {
      codegen::FunctionBuilder b(m, "bad", *parseFunctionType("(index, f32) -> ()"), o);
      b.parallelReduce(b.index(0), b.arg(0), b.index(1), {}, {codegen::Reduction::sum(b.i64(0))},
                       [&](Value i) {
                         b.name(b.cast(i, ElementType::I64), "i");
                         // Fails with the variable's record the last thing in its block.
                         return std::vector<Value>{b.add(b.arg(1), b.i64(1))};
                       });
      ASSERT_TRUE(b.finish());
    }
    {
      // Blocks enough to reuse the failed function's addresses.
      codegen::FunctionBuilder b(m, "good", *parseFunctionType("(f32) -> f32"), o);
      Value x = b.arg(0);
      for (int k = 0; k < 8; ++k)
        x = b.ifElse(
            x > 0.0f, [&] { return std::vector<Value>{x + x}; }, [&] { return std::vector<Value>{x}; })[0];
      b.name(x, "x");
      b.ret({x});
      ASSERT_FALSE(b.finish());
    }
    Error invalid = m.verify();
    ASSERT_FALSE(invalid) << "round " << round << ": " << invalid.str();
    auto loaded = jit->add(std::move(m));
    ASSERT_TRUE(loaded) << "round " << round << ": " << loaded.error().str();
    auto good = loaded->symbol("_mlir_ciface_good");
    ASSERT_TRUE(good);
    EXPECT_EQ(test::callJit<float(float)>(*good, 1.5f), 384.0f);
  }
}

TEST(DebugInfo, CheckedModeVerifies) {
  codegen::Module m("checked");
  buildKernel(m, true, /*checked=*/true);
  EXPECT_FALSE(m.verify());
}

// The IR stays valid through every level, computes the same, and at O2/O3
// the machine code is the same as without debug info.
TEST(DebugInfo, EveryLevelVerifiesComputesTheSameAndO2O3CodeIsUnchanged) {
  const auto dir = test::freshDir("jit/debug_info");
  for (int level = 0; level <= 3; ++level) {
    std::string objects[2];
    std::vector<float> results[2];
    for (int debug = 0; debug < 2; ++debug) {
      const std::string base = (dir / ("O" + std::to_string(level) + (debug ? "_debug" : "_plain"))).string();
      llvm::LLVMContext context;
      std::unique_ptr<llvm::Module> optimised;
      {
        codegen::Module m("k");
        buildKernel(m, debug != 0);
        ASSERT_NO_FATAL_FAILURE(compileAheadAt(m, level, base, context, optimised, objects[debug]));
      }
      EXPECT_EQ(optimised->getNamedMetadata("llvm.dbg.cu") != nullptr, debug != 0);

      codegen::Module m("k");
      buildKernel(m, debug != 0);
      auto engine = jit::Jit::create({.optLevel = static_cast<jit::OptLevel>(level), .gdbRegistration = debug != 0});
      ASSERT_TRUE(engine) << engine.error().str();
      auto loaded = engine->add(std::move(m));
      ASSERT_TRUE(loaded) << loaded.error().str();
      auto call = loaded->function("scale")->as<void(float, runtime::StridedMemRef<float, 1>,
                                                     runtime::StridedMemRef<float, 1>)>();
      ASSERT_TRUE(call) << call.error().str();
      std::vector<float> x(37), out(37);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * float(i) - 3.0f;
      (*call)(1.5f, runtime::makeView(x), runtime::makeView(out));
      results[debug] = out;
    }
    EXPECT_EQ(results[0], results[1]) << "O" << level;
    EXPECT_EQ(results[0][5], 1.5f * (0.25f * 5 - 3.0f) + 1.0f);
    if (level >= 2) {
      EXPECT_TRUE(objects[0] == objects[1]) << "O" << level << ": the machine code differs";
    }
  }
}

// Vector operations get their lines as scalar ones do: the loads, stores,
// masks, lane-wise arithmetic and reductions, before optimisation and in the
// optimised IR of every level, which verifies and computes as without debug
// info (with the same machine code at O2/O3). A named vector is a DWARF vector.
TEST(DebugInfo, VectorOperationsAreAtTheirGeneratorLines) {
  {
    codegen::Module m("vectors");
    const VectorLines lines = buildVectorKernel(m, true);
    ASSERT_FALSE(m.verify());
    llvm::Function* f = m.llvm().getFunction("vscale");
    ASSERT_TRUE(f && f->getSubprogram());
    const std::set<unsigned> vectorLines{lines.splat,      lines.loop,       lines.load,
                                         lines.add,        lines.multiply,   lines.store,
                                         lines.mask,       lines.maskedLoad, lines.maskedStore,
                                         lines.sum,        lines.reduce};
    std::map<unsigned, unsigned> seen;  // line -> vector instructions there
    for (const llvm::BasicBlock& block : *f)
      for (const llvm::Instruction& inst : block) {
        if (!touchesVectors(inst)) continue;
        const llvm::DILocation* loc = inst.getDebugLoc().get();
        ASSERT_TRUE(fromThisFile(loc)) << inst.getOpcodeName();
        EXPECT_TRUE(vectorLines.count(loc->getLine())) << inst.getOpcodeName() << " at line " << loc->getLine();
        ++seen[loc->getLine()];
      }
    for (unsigned line : vectorLines) EXPECT_GT(seen[line], 0u) << "nothing at line " << line;
    // A named vector is a DWARF vector of its lanes.
    const llvm::DICompositeType* scaled = nullptr;
    for (const llvm::BasicBlock& block : *f)
      for (const llvm::Instruction& inst : block)
        for (llvm::DbgVariableRecord& record : llvm::filterDbgVars(inst.getDbgRecordRange()))
          if (record.getVariable()->getName() == "scaled")
            scaled = llvm::dyn_cast<llvm::DICompositeType>(record.getVariable()->getType());
    ASSERT_TRUE(scaled);
    EXPECT_TRUE(scaled->isVector());
    EXPECT_EQ(scaled->getSizeInBits(), 8u * 32u);
    EXPECT_EQ(scaled->getBaseType()->getName(), "f32");
    // Each kind of instruction at the line of the operation that made it.
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::ShuffleVector), lines.splat);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::PHI), lines.loop);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::Load), lines.load);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::FMul), lines.multiply);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::Store), lines.store);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::FAdd), lines.add);
    EXPECT_EQ(vectorLineOf(*f, llvm::Instruction::ICmp), lines.mask);
    for (const llvm::BasicBlock& block : *f)
      for (const llvm::Instruction& inst : block) {
        const unsigned line = inst.getDebugLoc() ? inst.getDebugLoc().getLine() : 0;
        switch (intrinsicOf(inst)) {
          case llvm::Intrinsic::masked_load: EXPECT_EQ(line, lines.maskedLoad); break;
          case llvm::Intrinsic::masked_store: EXPECT_EQ(line, lines.maskedStore); break;
          case llvm::Intrinsic::vector_reduce_fadd: EXPECT_EQ(line, lines.reduce); break;
          default: break;
        }
      }
  }

  const auto dir = test::freshDir("jit/debug_info_vectors");
  for (int level = 0; level <= 3; ++level) {
    float results[2] = {};
    std::vector<float> outs[2];
    std::string objects[2];
    for (int debug = 0; debug < 2; ++debug) {
      const std::string base = (dir / ("O" + std::to_string(level) + (debug ? "_debug" : "_plain"))).string();
      VectorLines lines;
      llvm::LLVMContext context;
      std::unique_ptr<llvm::Module> optimised;
      {
        codegen::Module m("v");
        lines = buildVectorKernel(m, debug != 0);
        ASSERT_NO_FATAL_FAILURE(compileAheadAt(m, level, base, context, optimised, objects[debug]));
      }
      if (debug) {
        // The tail's masked accesses survive every level (their mask is only
        // known at run time), still at the lines that built them.
        unsigned maskedLoads = 0, maskedStores = 0;
        for (const llvm::Function& fn : *optimised)
          for (const llvm::BasicBlock& block : fn)
            for (const llvm::Instruction& inst : block) {
              const unsigned line = inst.getDebugLoc() ? inst.getDebugLoc().getLine() : 0;
              if (intrinsicOf(inst) == llvm::Intrinsic::masked_load) {
                ++maskedLoads;
                EXPECT_EQ(line, lines.maskedLoad) << "O" << level;
              } else if (intrinsicOf(inst) == llvm::Intrinsic::masked_store) {
                ++maskedStores;
                EXPECT_EQ(line, lines.maskedStore) << "O" << level;
              } else if (intrinsicOf(inst) == llvm::Intrinsic::vector_reduce_fadd) {
                EXPECT_EQ(line, lines.reduce) << "O" << level;
              }
            }
        EXPECT_GT(maskedLoads, 0u) << "O" << level;
        EXPECT_GT(maskedStores, 0u) << "O" << level;
      }

      codegen::Module m("v");
      buildVectorKernel(m, debug != 0);
      auto engine = jit::Jit::create({.optLevel = static_cast<jit::OptLevel>(level), .gdbRegistration = debug != 0});
      ASSERT_TRUE(engine) << engine.error().str();
      auto loaded = engine->add(std::move(m));
      ASSERT_TRUE(loaded) << loaded.error().str();
      auto call = loaded->function("vscale")->as<float(float, runtime::StridedMemRef<float, 1>,
                                                       runtime::StridedMemRef<float, 1>)>();
      ASSERT_TRUE(call) << call.error().str();
      std::vector<float> x(37), out(37);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * float(i) - 3.0f;
      results[debug] = (*call)(2.0f, runtime::makeView(x), runtime::makeView(out));
      outs[debug] = out;
      for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(out[i], 2.0f * x[i]) << "O" << level << " element " << i;
    }
    EXPECT_EQ(results[0], results[1]) << "O" << level;
    EXPECT_EQ(outs[0], outs[1]) << "O" << level;
    if (level >= 2) {
      EXPECT_TRUE(objects[0] == objects[1]) << "O" << level << ": the machine code differs";
    }
    EXPECT_FLOAT_EQ(results[0], 0.25f * (36.0f * 37.0f / 2.0f) - 3.0f * 37.0f);  // the sum of x
  }
}

TEST(DebugInfo, AotObjectLineTableNamesTheGenerator) {
  const auto dir = test::freshDir("jit/debug_info_dwarfdump");
  const std::string object = (dir / "k.o").string();
  {
    codegen::Module m("k");
    buildKernel(m, true);
    Error e = jit::compileAhead(m, {.object = object}, {});
    ASSERT_FALSE(e) << e.str();
  }
  const std::string tool = MEMJIT_LLVM_DWARFDUMP;
  if (!std::filesystem::exists(tool)) GTEST_SKIP() << tool << " not found";
  std::string lines;
  FILE* pipe = ::popen((tool + " --debug-line " + object).c_str(), "r");
  ASSERT_TRUE(pipe);
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) lines.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0);
  EXPECT_NE(lines.find("debug_info_test.cpp"), std::string::npos) << lines.substr(0, 2000);
}

// IR whose debug info MLIR made from its locations: addIR accepts it (the
// verifier passes), the kernel computes, and the object the Jit linked keeps
// the .mlir file's line table, at O0 and O2.
TEST(DebugInfo, AddIRKeepsTheDebugInfoOfMlirLocations) {
  const auto dir = test::freshDir("jit/debug_info_mlir");
  if (auto missing = test::missingMlirTools(); !missing.empty()) MEMJIT_MLIR_UNAVAILABLE() << missing;
  const auto ll = test::lowerWithLocations(dir);
  ASSERT_FALSE(ll.empty());
  const std::string ir = test::readFile(ll);
  ASSERT_NE(ir.find("!DICompileUnit"), std::string::npos) << "MLIR emitted no debug info";
  for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O2}) {
    const auto dump = dir / jit::optLevelName(level);
    auto engine = jit::Jit::create({.optLevel = level, .gdbRegistration = true, .dumpDirectory = dump.string()});
    ASSERT_TRUE(engine) << engine.error().str();
    auto loaded = engine->addIR(ir, "located");
    ASSERT_TRUE(loaded) << loaded.error().str();
    // MLIR's IR has no signature metadata: the C interface by its symbol.
    auto scale = loaded->symbol("_mlir_ciface_scale");
    ASSERT_TRUE(scale) << scale.error().str();
    std::vector<float> x(19);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i) - 4.0f;
    auto view = runtime::makeView(x);
    test::callJit<void(runtime::StridedMemRef<float, 1>*, float)>(*scale, &view, -2.5f);
    EXPECT_EQ(x[3], 2.5f);
    EXPECT_EQ(x[18], -35.0f);

    std::filesystem::path object;
    for (const auto& entry : std::filesystem::directory_iterator(dump))
      if (entry.path().extension() == ".o") object = entry.path();
    ASSERT_FALSE(object.empty()) << "the Jit left no object in " << dump;
    const std::string tool = MEMJIT_LLVM_DWARFDUMP;
    if (!std::filesystem::exists(tool)) GTEST_SKIP() << tool << " not found";
    const std::string lines = test::debugLine(tool, object);
    EXPECT_NE(lines.find("located.mlir"), std::string::npos) << jit::optLevelName(level) << "\n" << lines;
    EXPECT_EQ(test::lineTableLines(lines).count(test::kLocatedMulfLine), 1u)
        << jit::optLevelName(level) << ": no row for located.mlir:" << test::kLocatedMulfLine << "\n" << lines;
  }
}
