// Compiling a large module's outlined loops in parts (jit/module_parts.h) and
// the archive its objects travel in (jit/object_archive.h).
#include "jit/module_parts.h"

#include "jit/compile.h"
#include "jit/large_functions.h"
#include "jit/object_archive.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/memref.h"
#include "scaling_kernels.h"
#include "support/expected.h"
#include "support/files.h"
#include "support/jit.h"
#include "support/parsed_ir.h"

using namespace memjit;
using memjit::bench::ScalingShape;

namespace {

// The 10K-op loops kernel, its loops outlined as optimize() would.
codegen::Module outlinedLoops(std::size_t ops = 10000) {
  codegen::Module module("large");
  Error e = bench::addScalingKernel(module, "kernel", ScalingShape::Loops, ops);
  EXPECT_FALSE(e) << e.str();
  EXPECT_GT(jit::detail::outlineLoopsOfLargeFunctions(module.llvm()), 1u);
  return module;
}

using test::verifies;

std::unique_ptr<llvm::Module> readPart(const std::string& bitcode, llvm::LLVMContext& context) {
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "part"), context);
  if (!module) {
    ADD_FAILURE() << llvm::toString(module.takeError());
    return nullptr;
  }
  return std::move(*module);
}

std::set<std::string> outlinedNames(const llvm::Module& module) {
  std::set<std::string> names;
  for (const llvm::Function& f : module)
    if (!f.isDeclaration() && f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) names.insert(f.getName().str());
  return names;
}

// A writable i32 global of `linkage`, 0 at first.
llvm::GlobalVariable& i32Global(llvm::Module& module, llvm::GlobalValue::LinkageTypes linkage, const char* name) {
  auto* i32 = llvm::Type::getInt32Ty(module.getContext());
  return *new llvm::GlobalVariable(module, i32, false, linkage, llvm::ConstantInt::get(i32, 0), name);
}

// A first outlined function of `module` stores to `global` before its loop.
void storeInFirstOutlined(llvm::Module& module, llvm::GlobalVariable& global) {
  for (llvm::Function& f : module)
    if (!f.isDeclaration() && f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) {
      llvm::IRBuilder<> b(&*f.getEntryBlock().getFirstInsertionPt());
      b.CreateStore(b.getInt32(1), &global);
      return;
    }
}

// The loops kernel's output on fixed inputs, compiled with `options`.
std::vector<float> runLoops(jit::Jit& jit, codegen::Module module, jit::CompileStats* stats = nullptr) {
  jit::LoadedModule loaded = test::valueOrFail(jit.add(std::move(module)), "add");
  if (stats) *stats = loaded.compileStats();
  jit::Function fn = test::valueOrFail(loaded.function("kernel"), "kernel");
  std::vector<float> in(bench::scalingInputSize(ScalingShape::Loops));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 11) * 0.375f - 1.5f;
  in[0] = -0.0f;
  in[1] = 1e-40f;
  std::vector<float> out(bench::scalingOutputSize(ScalingShape::Loops), 1.5f);
  auto inView = runtime::makeView(in), outView = runtime::makeView(out);
  using Fn = void(runtime::StridedMemRef<float, 1>*, runtime::StridedMemRef<float, 1>*);
  fn.cInterfaceAs<Fn>()(&inView, &outView);
  return out;
}

codegen::Module loopsKernel(std::size_t ops = 10000) {
  codegen::Module module("large");
  Error e = bench::addScalingKernel(module, "kernel", ScalingShape::Loops, ops);
  EXPECT_FALSE(e) << e.str();
  return module;
}

bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

}  // namespace

TEST(ModuleSplit, CutsTheOutlinedFunctionsBySizeIntoPartsTheRestDeclares) {
  codegen::Module module = outlinedLoops();
  llvm::Module& ir = module.llvm();
  const std::set<std::string> outlined = outlinedNames(ir);
  auto split = jit::detail::ModuleSplit::plan(ir, 100, 2000);
  ASSERT_TRUE(split.has_value());
  ASSERT_GE(split->parts(), 3u);
  std::set<std::string> defined;
  for (std::size_t k = 0; k < split->parts(); ++k) {
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> part = readPart(split->writePart(k), context);
    ASSERT_TRUE(part && verifies(*part));
    std::size_t instructions = 0;
    for (const llvm::Function& f : *part) {
      if (f.isDeclaration()) continue;
      EXPECT_TRUE(f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) << f.getName().str();
      EXPECT_TRUE(f.hasExternalLinkage() && f.hasHiddenVisibility()) << f.getName().str();
      EXPECT_TRUE(defined.insert(f.getName().str()).second) << f.getName().str() << " in two parts";
      instructions += f.getInstructionCount();
    }
    EXPECT_GT(instructions, 0u);
    EXPECT_LE(instructions, 2000u + 200u);  // one function may cross the limit, and none is that large here
  }
  EXPECT_EQ(defined, outlined);
  split->removeParts();
  ASSERT_TRUE(verifies(ir));
  EXPECT_TRUE(outlinedNames(ir).empty());
  for (const std::string& name : outlined) {
    const llvm::Function* declared = ir.getFunction(name);
    ASSERT_NE(declared, nullptr) << name;
    EXPECT_TRUE(declared->isDeclaration() && declared->hasHiddenVisibility()) << name;
    EXPECT_FALSE(declared->use_empty()) << name << " is no longer called";
  }
}

TEST(ModuleSplit, LeavesModulesBelowTheThresholdWhole) {
  codegen::Module module = outlinedLoops(1000);
  EXPECT_FALSE(jit::detail::ModuleSplit::plan(module.llvm()).has_value());
  EXPECT_FALSE(outlinedNames(module.llvm()).empty());
  for (const std::string& name : outlinedNames(module.llvm()))
    EXPECT_TRUE(module.llvm().getFunction(name)->hasInternalLinkage()) << name;
}

TEST(ModuleSplit, LeavesWholeWhatOnlyOneObjectCanHold) {
  {
    codegen::Module module = outlinedLoops();
    module.llvm().setModuleInlineAsm(".globl memjit_test_marker\nmemjit_test_marker:");
    EXPECT_FALSE(jit::detail::ModuleSplit::plan(module.llvm(), 100, 2000).has_value()) << "module assembly";
  }
  {
    codegen::Module module = outlinedLoops();
    llvm::Module& ir = module.llvm();
    storeInFirstOutlined(ir, i32Global(ir, llvm::GlobalValue::InternalLinkage, "counter"));
    EXPECT_FALSE(jit::detail::ModuleSplit::plan(ir, 100, 2000).has_value()) << "a writable internal global";
    for (const std::string& name : outlinedNames(ir))
      EXPECT_TRUE(ir.getFunction(name)->hasInternalLinkage()) << name << ": changed though not split";
  }
  {
    codegen::Module module = outlinedLoops();
    llvm::Module& ir = module.llvm();
    storeInFirstOutlined(ir, i32Global(ir, llvm::GlobalValue::WeakAnyLinkage, "weak_counter"));
    EXPECT_FALSE(jit::detail::ModuleSplit::plan(ir, 100, 2000).has_value()) << "a weak definition";
  }
}

TEST(ModuleSplit, CopiesTheInternalConstantsAndFunctionsAPartUses) {
  codegen::Module module = outlinedLoops();
  llvm::Module& ir = module.llvm();
  llvm::LLVMContext& context = ir.getContext();
  auto* i32 = llvm::Type::getInt32Ty(context);
  auto* table = new llvm::GlobalVariable(ir, i32, /*isConstant=*/true, llvm::GlobalValue::InternalLinkage,
                                         llvm::ConstantInt::get(i32, 7), "table");
  auto* helper = llvm::Function::Create(llvm::FunctionType::get(i32, false), llvm::GlobalValue::InternalLinkage,
                                        "helper", ir);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", helper));
    b.CreateRet(b.CreateLoad(i32, table));
  }
  auto* sink = new llvm::GlobalVariable(ir, i32, false, llvm::GlobalValue::ExternalLinkage,
                                        llvm::ConstantInt::get(i32, 0), "sink");
  llvm::Function* first = nullptr;
  for (llvm::Function& f : ir)
    if (!f.isDeclaration() && f.hasFnAttribute(jit::detail::kOutlinedLoopsAttribute)) {
      first = &f;
      break;
    }
  ASSERT_NE(first, nullptr);
  {
    llvm::IRBuilder<> b(&*first->getEntryBlock().getFirstInsertionPt());
    b.CreateStore(b.CreateCall(helper), sink);
  }
  auto split = jit::detail::ModuleSplit::plan(ir, 100, 2000);
  ASSERT_TRUE(split.has_value());
  llvm::LLVMContext partContext;
  std::unique_ptr<llvm::Module> part = readPart(split->writePart(0), partContext);
  ASSERT_TRUE(part && verifies(*part));
  const llvm::Function* copied = part->getFunction("helper");
  ASSERT_NE(copied, nullptr);
  EXPECT_FALSE(copied->isDeclaration());
  EXPECT_TRUE(copied->hasInternalLinkage());
  const llvm::GlobalVariable* copiedTable = part->getNamedGlobal("table");
  ASSERT_NE(copiedTable, nullptr);
  EXPECT_TRUE(copiedTable->hasInitializer() && copiedTable->hasInternalLinkage());
  const llvm::GlobalVariable* declaredSink = part->getNamedGlobal("sink");
  ASSERT_NE(declaredSink, nullptr);
  EXPECT_TRUE(declaredSink->isDeclaration());  // one variable, in the rest
  // The rest keeps its own helper and table, still internal.
  split->removeParts();
  ASSERT_TRUE(verifies(ir));
  EXPECT_TRUE(helper->hasInternalLinkage() && !helper->isDeclaration());
  EXPECT_TRUE(table->hasInternalLinkage());
}

TEST(CompileInParts, GivesTheObjectsInOrderAndEachPartAContextOfItsOwn) {
  for (unsigned threads : {1u, 2u, 0u}) {
    codegen::Module module = outlinedLoops();
    auto split = jit::detail::ModuleSplit::plan(module.llvm(), 100, 2000);
    ASSERT_TRUE(split.has_value());
    const std::size_t parts = split->parts();
    std::atomic<std::size_t> ownContexts{0};
    auto objects = jit::detail::compileInParts(
        *split, threads, [&]() -> Expected<std::string> { return std::string("rest"); },
        [&](llvm::Module& part, std::size_t index) -> Expected<std::string> {
          ownContexts += &part.getContext() != &module.llvm().getContext();
          return std::to_string(index) + ":" + std::to_string(outlinedNames(part).size());
        });
    ASSERT_TRUE(objects.ok()) << objects.error().str();
    ASSERT_EQ(objects->size(), parts + 1) << threads << " threads";
    EXPECT_EQ((*objects)[0], "rest");
    for (std::size_t k = 0; k < parts; ++k)
      EXPECT_EQ((*objects)[k + 1].rfind(std::to_string(k) + ":", 0), 0u) << (*objects)[k + 1];
    EXPECT_EQ(ownContexts.load(), parts);
    EXPECT_TRUE(outlinedNames(module.llvm()).empty()) << "the parts stayed in the rest";
  }
}

TEST(CompileInParts, ReportsThePartThatFailedOnceEveryThreadIsDone) {
  codegen::Module module = outlinedLoops();
  auto split = jit::detail::ModuleSplit::plan(module.llvm(), 100, 2000);
  ASSERT_TRUE(split.has_value());
  const std::size_t parts = split->parts();
  std::atomic<std::size_t> compiled{0};
  auto objects = jit::detail::compileInParts(
      *split, 2, [&]() -> Expected<std::string> { return std::string("rest"); },
      [&](llvm::Module&, std::size_t index) -> Expected<std::string> {
        ++compiled;
        if (index == 1) return Error(ErrorCode::CompileError, "part 2 failed");
        return std::string("part");
      });
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.error().message(), "part 2 failed");
  EXPECT_EQ(compiled.load(), parts);
}

TEST(ObjectArchive, KeepsTheObjectsInOrderAndReadsAPlainObjectAsItself) {
  const std::vector<std::string> objects = {std::string("\x7f" "ELF first", 9), std::string("second, odd size"),
                                            std::string(1001, 'x')};
  std::string archive = test::valueOrFail(jit::detail::archiveObjects(objects), "archive");
  EXPECT_TRUE(jit::detail::isArchive(archive));
  std::vector<std::string_view> read = test::valueOrFail(jit::detail::objectsIn(archive), "read");
  ASSERT_EQ(read.size(), objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    EXPECT_EQ(read[i], objects[i]);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(read[i].data()) % 2, 0u) << "ELF readers need 2-byte alignment";
  }
  const std::string plain = "\x7f" "ELF plain";
  std::vector<std::string_view> one = test::valueOrFail(jit::detail::objectsIn(plain), "plain");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].data(), plain.data());
  auto truncated = jit::detail::objectsIn(std::string_view(archive).substr(0, archive.size() - 500));
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.error().code(), ErrorCode::ParseError);
  EXPECT_NE(truncated.error().message().find("archive"), std::string::npos) << truncated.error().message();
}

TEST(CompileInParts, AJitGivesTheBitsOfO0OnAnyNumberOfThreads) {
  jit::Jit o0 = test::makeJit({.optLevel = jit::OptLevel::O0});
  const std::vector<float> expected = runLoops(o0, loopsKernel());
  EXPECT_NE(expected[0], 1.5f);
  // One per core (0) is what every other test here uses.
  for (unsigned threads : {1u, 3u}) {
    jit::JitOptions options{.optLevel = jit::OptLevel::O2};
    options.compileThreads = threads;
    jit::Jit jit = test::makeJit(options);
    jit::CompileStats stats;
    EXPECT_TRUE(sameBits(runLoops(jit, loopsKernel(), &stats), expected)) << threads << " threads";
    EXPECT_GE(stats.parts, 3u) << threads << " threads";
    EXPECT_GT(stats.codeBytes, 0u);
  }
}

TEST(CompileInParts, ACachedArchiveLoadsWithItsPartsAndTheSameBits) {
  const std::filesystem::path dir = test::freshDir("module_parts_cache");
  auto cache = test::valueOrFail(jit::ObjectCache::onDisk((dir / "cache").string()), "cache");
  std::vector<float> compiled, cached;
  jit::CompileStats first, second;
  {
    jit::Jit jit = test::makeJit({.optLevel = jit::OptLevel::O2, .cache = cache, .dumpDirectory = (dir / "dumps").string()});
    compiled = runLoops(jit, loopsKernel(), &first);
  }
  {
    jit::Jit jit = test::makeJit({.optLevel = jit::OptLevel::O2, .cache = cache});
    cached = runLoops(jit, loopsKernel(), &second);
  }
  EXPECT_FALSE(first.cacheHit);
  EXPECT_TRUE(second.cacheHit);
  EXPECT_GE(first.parts, 3u);
  EXPECT_EQ(second.parts, first.parts);
  EXPECT_EQ(second.codeBytes, first.codeBytes);
  EXPECT_TRUE(sameBits(compiled, cached));
  // The dumps: the archive, and each part's optimised IR beside the rest's.
  std::size_t archives = 0, partIR = 0, restIR = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir / "dumps")) {
    const std::string name = entry.path().filename().string();
    archives += name.ends_with(".a");
    partIR += name.find(".part") != std::string::npos && name.ends_with(".after.ll");
    restIR += name.find(".part") == std::string::npos && name.ends_with(".after.ll");
  }
  EXPECT_EQ(archives, 1u);
  EXPECT_EQ(partIR, first.parts - 1);
  EXPECT_EQ(restIR, 1u);
}

TEST(CompileInParts, TheTierUpOfALargeModuleCompilesInPartsUnderTheSameHandles) {
  jit::JitOptions options{.optLevel = jit::OptLevel::O2};
  options.tiering.enabled = true;
  jit::Jit o0 = test::makeJit({.optLevel = jit::OptLevel::O0});
  const std::vector<float> expected = runLoops(o0, loopsKernel());
  jit::Jit jit = test::makeJit(options);
  jit::LoadedModule loaded = test::valueOrFail(jit.add(loopsKernel()), "add");
  jit::Function fn = test::valueOrFail(loaded.function("kernel"), "kernel");
  std::vector<float> in(bench::scalingInputSize(ScalingShape::Loops));
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 11) * 0.375f - 1.5f;
  in[0] = -0.0f;
  in[1] = 1e-40f;
  auto call = [&] {
    std::vector<float> out(bench::scalingOutputSize(ScalingShape::Loops), 1.5f);
    auto inView = runtime::makeView(in), outView = runtime::makeView(out);
    using Fn = void(runtime::StridedMemRef<float, 1>*, runtime::StridedMemRef<float, 1>*);
    fn.cInterfaceAs<Fn>()(&inView, &outView);
    return out;
  };
  EXPECT_TRUE(sameBits(call(), expected)) << "first tier";
  jit::requestTierUp(loaded);
  Error waited = jit::waitForTierUp(loaded);
  ASSERT_FALSE(waited) << waited.str();
  EXPECT_EQ(jit::currentTier(loaded), jit::Tier::Optimised);
  EXPECT_TRUE(sameBits(call(), expected)) << "tier-up";
}

namespace {

// An object defining `int <name>(void)` returning `value`, ahead of time.
std::string objectReturning(const std::string& name, int value, const std::filesystem::path& dir) {
  llvm::LLVMContext context;
  const std::string ir = "define i32 @" + name + "() {\n  ret i32 " + std::to_string(value) + "\n}\n";
  auto module = test::valueOrFail(
      jit::detail::parseIR(llvm::MemoryBufferRef(ir, name), context, "test IR"), "parse");
  const std::string path = (dir / (name + ".o")).string();
  Error e = jit::compileAhead(*module, {.object = path});
  EXPECT_FALSE(e) << e.str();
  return test::readFile(path);
}

}  // namespace

TEST(ObjectArchive, AddObjectLinksEveryMemberOfAnArchive) {
  const std::filesystem::path dir = test::freshDir("module_parts_archive");
  const std::string archive = test::valueOrFail(
      jit::detail::archiveObjects({objectReturning("first", 11, dir), objectReturning("second", 22, dir)}), "archive");
  jit::Jit jit = test::makeJit();
  jit::LoadedModule loaded = test::valueOrFail(jit.addObject(archive, "archived"), "addObject");
  for (auto [name, value] : {std::pair{"first", 11}, std::pair{"second", 22}}) {
    void* address = test::valueOrFail(loaded.symbol(name), name);
    EXPECT_EQ(reinterpret_cast<int (*)()>(address)(), value) << name;
    std::string text = test::valueOrFail(loaded.assembly(name), "assembly");
    EXPECT_NE(text.find(name), std::string::npos) << text;
    EXPECT_NE(text.find("ret"), std::string::npos) << text;
  }
  EXPECT_EQ(loaded.compileStats().parts, 2u);
  // A damaged archive is refused with what it is.
  auto damaged = jit.addObject(std::string_view(archive).substr(0, archive.size() / 2), "damaged");
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.error().code(), ErrorCode::ParseError);
  EXPECT_NE(damaged.error().message().find("archive"), std::string::npos) << damaged.error().message();
}

TEST(CompileInParts, LargeFunctionOptionsMoveTheThresholdsAndTheCacheKey) {
  jit::Jit o0 = test::makeJit({.optLevel = jit::OptLevel::O0});
  const std::vector<float> expected = runLoops(o0, loopsKernel(600));
  auto cache = jit::ObjectCache::inMemory();
  jit::JitOptions small{.optLevel = jit::OptLevel::O2, .cache = cache};
  small.largeFunctions = {.outlineLoopsAbove = 0, .compileInPartsAbove = 0, .instructionsPerPart = 300};
  jit::JitOptions defaults{.optLevel = jit::OptLevel::O2, .cache = cache};
  jit::CompileStats inParts, whole, again;
  {
    jit::Jit jit = test::makeJit(small);
    EXPECT_TRUE(sameBits(runLoops(jit, loopsKernel(600), &inParts), expected));
  }
  {
    jit::Jit jit = test::makeJit(defaults);
    EXPECT_TRUE(sameBits(runLoops(jit, loopsKernel(600), &whole), expected));
  }
  {
    jit::Jit jit = test::makeJit(small);
    EXPECT_TRUE(sameBits(runLoops(jit, loopsKernel(600), &again), expected));
  }
  EXPECT_GE(inParts.parts, 3u);
  EXPECT_FALSE(inParts.cacheHit);
  EXPECT_EQ(whole.parts, 1u);
  EXPECT_FALSE(whole.cacheHit) << "the other thresholds' object was taken for this one";
  EXPECT_TRUE(again.cacheHit);
  EXPECT_EQ(again.parts, inParts.parts);
}
