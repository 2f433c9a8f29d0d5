#include "compile.h"
#include "accumulator_jam.h"
#include "dot_product.h"
#include "first_tier_bodies.h"
#include "float_results.h"
#include "half_registers.h"
#include "host_detection.h"
#include "large_functions.h"
#include "minmax_reductions.h"
#include "narrow_type_width.h"
#include "serial_recurrences.h"
#include "remark_collector.h"
#include "llvm_compat.h"
#include "streaming_stores.h"
#include "slp_extensions.h"
#include "vector_math.h"
#include "vector_math_width.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/TargetParser/Triple.h>

namespace memjit::jit {

const char* optLevelName(OptLevel level) noexcept {
  switch (level) {
    case OptLevel::O0: return "O0";
    case OptLevel::O1: return "O1";
    case OptLevel::O2: return "O2";
    case OptLevel::O3: return "O3";
  }
  return "O?";
}

const TargetSpec& TargetSpec::host() {
  // Detected once: asking the CPU for its features on every module would
  // cost as much as compiling a small kernel.
  return detail::hostTarget({});
}

std::string TargetSpec::str() const { return triple + "/" + cpu + "/" + features; }

Error checkTarget(const TargetSpec& spec) {
  detail::initializeAllTargets();
  std::string message;
  if (!llvm_compat::lookupTarget(spec.triple, message))
    return Error(ErrorCode::Unsupported,
                 "no LLVM target for triple '" + spec.triple + "': " + message);
  return Error::success();
}

namespace detail {

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

void initializeAllTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

llvm::CodeGenOptLevel codegenOptLevel(OptLevel level) noexcept {
  switch (level) {
    case OptLevel::O0: return llvm::CodeGenOptLevel::None;
    case OptLevel::O1: return llvm::CodeGenOptLevel::Less;
    case OptLevel::O2: return llvm::CodeGenOptLevel::Default;
    case OptLevel::O3: return llvm::CodeGenOptLevel::Aggressive;
  }
  return llvm::CodeGenOptLevel::Default;
}

Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const TargetSpec& spec,
                                                                   OptLevel level) {
  if (spec == TargetSpec::host())
    initializeNativeTarget();
  else
    initializeAllTargets();
  std::string message;
  const llvm::Target* target = llvm_compat::lookupTarget(spec.triple, message);
  if (!target)
    return Error(ErrorCode::Unsupported,
                 "no LLVM target for triple '" + spec.triple + "': " + message);
  llvm::TargetOptions options;
  // Loops start on a 64-byte boundary on x86 (LLVM's default is 16), so a
  // small loop body sits in one cache line of the instruction fetch and the
  // op cache. On a Zen 5 EPYC the naive matmul's 22-byte inner loop across a
  // 64-byte boundary ran 1.4x slower than within one (g++'s copy happened to
  // start at a 32-byte offset); PolyBench and the kernel benchmarks were
  // measured both ways (docs/benchmarks.md). Only loops: a function's entry
  // keeps LLVM's alignment.
  if (llvm::Triple(spec.triple).isX86()) options.LoopAlignment = kLoopAlignment;
  std::string cpu = spec.cpu.empty() ? std::string("generic") : spec.cpu;
  llvm::TargetMachine* machine = llvm_compat::createTargetMachine(
      *target, spec.triple, cpu, spec.features, options, kRelocationModel, codegenOptLevel(level));
  if (!machine)
    return Error(ErrorCode::Unsupported, "LLVM cannot create a target machine for " + spec.str());
  return std::unique_ptr<llvm::TargetMachine>(machine);
}

namespace {

// LLVM's default diagnostic handler prints what the IR passes report to
// stderr: a loop whose vectorisation was asked for (LoopOptions) and not
// done printed "warning: loop not vectorized" on every compile (found by the
// difftest). A library does not print: while the passes run, everything but
// an error is dropped (AddOptions::remarks collects remarks above this), and
// errors go to the handler that was there.
class QuietOptimizerDiagnostics {
 public:
  explicit QuietOptimizerDiagnostics(llvm::LLVMContext& context) : context_(context) {
    context.setDiagnosticHandler(std::make_unique<Handler>(context.getDiagnosticHandler()));
  }
  ~QuietOptimizerDiagnostics() {
    auto mine = context_.getDiagnosticHandler();
    context_.setDiagnosticHandler(std::move(static_cast<Handler&>(*mine).previous));
  }
  QuietOptimizerDiagnostics(const QuietOptimizerDiagnostics&) = delete;
  QuietOptimizerDiagnostics& operator=(const QuietOptimizerDiagnostics&) = delete;

 private:
  struct Handler : llvm::DiagnosticHandler {
    explicit Handler(std::unique_ptr<llvm::DiagnosticHandler> p) : previous(std::move(p)) {}
    bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
      return info.getSeverity() == llvm::DS_Error ? previous->handleDiagnostics(info) : true;
    }
    std::unique_ptr<llvm::DiagnosticHandler> previous;
  };
  llvm::LLVMContext& context_;
};

}  // namespace

// The AVX-512 CPUs that get prefer-vector-width=512. LLVM 19's tuning
// (TuningPrefer256Bit) and g++ 12's (avx256_optimal) prefer 256-bit vectors on
// every Intel AVX-512 core from skylake-avx512 through sapphirerapids, because
// on Skylake-X, Cascade Lake and Cooper Lake 512-bit instructions lower the
// core's clock (the AVX-512 frequency licences) for the whole program. From Ice
// Lake on that penalty is small, and AMD's Zen 4/5 have none (LLVM already uses
// 512 bits there; listed so the choice does not depend on LLVM's version).
// Measured only on a Sapphire Rapids VM: 256-bit vectors left saxpy at 0.67x of
// g++ -march=native (which tunes "generic" on that VM: 512 bits), the tiled
// matmul at 0.80-0.85x and the fast-math softmax and 16M sum behind; 512 bits
// closed each gap (docs/slow-kernels.md, "Every loop at half width"). The other
// CPUs are listed for their clock behaviour, not measured. Everything else
// (skylake-avx512, cascadelake, cooperlake, cannonlake, knl, knm, unknown or
// generic names) keeps LLVM's tuning for the CPU.
bool prefers512BitVectors(std::string_view cpu, std::string_view features) noexcept {
  static constexpr std::string_view kCpus[] = {
      "icelake-client", "icelake-server", "tigerlake",       "rocketlake", "sapphirerapids",
      "emeraldrapids",  "graniterapids",  "graniterapids-d", "znver4",     "znver5"};
  if (features.find("+avx512f") == std::string_view::npos) return false;
  for (std::string_view listed : kCpus)
    if (cpu == listed) return true;
  return false;
}

void prepareModule(llvm::Module& module, llvm::TargetMachine& machine) {
  dropFirstTierBodies(module);  // a first tier has used its own already (tiering.cpp)
  llvm_compat::setTargetTriple(module, machine.getTargetTriple());
  fenceHalfBitcasts(module);
  returnFloatsAsBitsToCallers(module);
  module.setDataLayout(machine.createDataLayout());
  const std::string cpu = machine.getTargetCPU().str();
  const std::string features = machine.getTargetFeatureString().str();
  const bool wide = prefers512BitVectors(cpu, features);
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    if (!f.hasFnAttribute("target-cpu")) f.addFnAttr("target-cpu", cpu);
    if (!f.hasFnAttribute("target-features") && !features.empty())
      f.addFnAttr("target-features", features);
    // The width never reorders an exact float sum. A function's own attribute wins.
    if (wide && !f.hasFnAttribute("prefer-vector-width")) f.addFnAttr("prefer-vector-width", "512");
  }
  // A `_mlir_ciface_` wrapper only unpacks descriptors and calls its kernel.
  // Inlining a kernel with control flow (loops) into it would make the
  // optimiser and code generator do all of the kernel's work twice, for a
  // saving of one call per invocation; so that one call site stays a call.
  for (llvm::Function& wrapper : module) {
    if (wrapper.isDeclaration() || !wrapper.getName().starts_with("_mlir_ciface_")) continue;
    llvm::Function* kernel =
        module.getFunction(wrapper.getName().drop_front(std::strlen("_mlir_ciface_")));
    if (!kernel || kernel->isDeclaration() || kernel->size() < 2) continue;
    for (llvm::BasicBlock& block : wrapper)
      for (llvm::Instruction& inst : block)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&inst))
          if (call->getCalledFunction() == kernel) call->addFnAttr(llvm::Attribute::NoInline);
  }
}

// The loop vectoriser follows a wide (AVX-512) main loop with a second, narrower
// vector loop for the remainder before the scalar one. For the elementwise add
// at O2 that costs ~20% of the compile (one more loop to vectorise, strength-
// reduce and select: 5.8 of 29 M instructions under callgrind) and speeds up
// only the last < VF*interleave iterations, never the main loop. LLVM has no
// per-module switch, only the process-wide -enable-epilogue-vectorization, so
// memjit turns it off once, unless the application has set it itself (e.g.
// with llvm::cl::ParseCommandLineOptions before compiling anything) or asked
// memjit not to (JitOptions::skipVectorEpilogue = false).
static void skipEpilogueVectorization() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("enable-epilogue-vectorization");
    if (it == options.end() || it->second->getNumOccurrences() > 0) return;
    (void)it->second->addOccurrence(0, "enable-epilogue-vectorization", "false");
  });
}

// The library info for a machine's triple and features, with the vector math
// library when asked: built once per configuration, not per module. Building
// it sorts several hundred vector variants, 0.3 M instructions, about a
// seventh of a small kernel's O0 compile under callgrind. Entries are never
// removed (there are as many as target configurations), so references stay
// valid; the pass pipeline only reads (copies) them. LLVM's process-wide
// -vector-library, which memjit does not use, is read when an entry is built.
static const llvm::TargetLibraryInfoImpl& libraryInfo(const llvm::TargetMachine& machine, bool vectorMath) {
  static std::mutex mutex;
  using Key = std::tuple<std::string, std::string, std::string, bool>;  // triple, CPU, features, vectorMath
  static std::map<Key, std::unique_ptr<const llvm::TargetLibraryInfoImpl>> built;
  Key key{machine.getTargetTriple().str(), machine.getTargetCPU().str(), machine.getTargetFeatureString().str(),
          vectorMath};
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = built[key];
  if (!slot) {
    auto library = std::make_unique<llvm::TargetLibraryInfoImpl>(machine.getTargetTriple());
    if (vectorMath) addVectorMathLibrary(*library, machine);
    slot = std::move(library);
  }
  return *slot;
}

void applyProcessWideOptions(const PipelineOptions& options) {
  if (options.level >= OptLevel::O2 && options.skipVectorEpilogue) skipEpilogueVectorization();
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine, const PipelineOptions& options) {
  const OptLevel level = options.level;
  applyProcessWideOptions(options);
  // Guards that keep large functions' optimisation linear (large_functions.h);
  // functions below their thresholds, every hand-written kernel, are untouched.
  if (level >= OptLevel::O1) {
    if (options.outlineLoops) outlineLoopsOfLargeFunctions(module, options.outlineLoopsAbove);
    keepHugeLoopsScalar(module);
  }
  llvm::PipelineTuningOptions tuning;
  const bool vectorize = level >= OptLevel::O2;
  tuning.LoopVectorization = vectorize;
  tuning.SLPVectorization = vectorize;
  tuning.LoopUnrolling = level >= OptLevel::O2;
  tuning.LoopInterleaving = level >= OptLevel::O2;

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Passing the machine registers its TargetIRAnalysis: cost models see the
  // host's vector widths instead of the generic "no vectors" answer.
  llvm::PassInstrumentationCallbacks instrumentation;
  trimPipelineForOutlinedLoops(instrumentation);
  guardSlpAgainstMixedExtensions(instrumentation);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &instrumentation);
  // Streaming-store tags become `!nontemporal` once vectorisation is done.
  // `auto...`: LLVM 20 added a ThinOrFullLTOPhase parameter.
  builder.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager& mpm, llvm::OptimizationLevel, auto...) {
        mpm.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
      });
  // The builder's dot products become the target's instructions before the
  // fallbacks are inlined; vectorised u8 x s8 sums use vpdpbusd (dot_product.h).
  builder.registerPipelineStartEPCallback([&machine](llvm::ModulePassManager& mpm, llvm::OptimizationLevel) {
    mpm.addPass(DotInstructionsPass(machine));
  });
  if (vectorize)
    builder.registerOptimizerLastEPCallback([&machine](llvm::ModulePassManager& mpm, llvm::OptimizationLevel, auto...) {
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(DotLoopIdiomPass(machine)));
      // Unrolled chains over widened halves, SLP-vectorised (serial_recurrences.h).
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(HalfChainSlpPass()));
    });
  // Nests streaming narrow rows into a row of accumulators are jammed
  // (accumulator_jam.h); loops converting narrow elements get the width of
  // the target's vector register for the narrowest one (narrow_type_width.h).
  if (vectorize)
    builder.registerVectorizerStartEPCallback([&machine](llvm::FunctionPassManager& fpm, llvm::OptimizationLevel) {
      fpm.addPass(AccumulatorJamPass());
      fpm.addPass(DotLoopWidthPass(machine));
      fpm.addPass(NarrowTypeWidthPass());
      // Serial float chains are not runtime-unrolled (serial_recurrences.h).
      fpm.addPass(SerialRecurrencesPass());
      // Loops calling libmvec get its widest variant's width (vector_math_width.h).
      fpm.addPass(VectorMathWidthPass());
      if constexpr (llvm_compat::kVectorizerMixesMinMaxReductionTypes) fpm.addPass(MixedMinMaxReductionsPass());
    });
  // Registered first, so registerFunctionAnalyses keeps this one: the
  // module's own library info, with the vector math library when asked.
  const llvm::TargetLibraryInfoImpl& library = libraryInfo(machine, options.vectorMath);
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);

  const QuietOptimizerDiagnostics quiet(module.getContext());
  // Only when asked: without a collecting handler LLVM builds no remark at all.
  std::optional<RemarkCollector> remarks;
  if (options.remarks) remarks.emplace(module.getContext(), *options.remarks);
  llvm::ModulePassManager passes;
  switch (level) {
    case OptLevel::O0: passes = builder.buildO0DefaultPipeline(llvm::OptimizationLevel::O0); break;
    case OptLevel::O1: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O1); break;
    case OptLevel::O2: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2); break;
    case OptLevel::O3: passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3); break;
  }
  passes.run(module, mam);
  if (level >= OptLevel::O1) boundSchedulingRegions(module);
  // After vectorising, which is what calls libmvec's wide variants.
  keepFramePointerAroundVectorCalls(module);
}

static void dropTrailingNewlines(std::string& text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
}

Error verify(const llvm::Module& module) {
  std::string report;
  llvm::raw_string_ostream os(report);
  if (llvm::verifyModule(module, &os)) {
    os.flush();
    dropTrailingNewlines(report);
    return Error(ErrorCode::CompileError,
                 "invalid module '" + module.getModuleIdentifier() + "': " + report);
  }
  return Error::success();
}

Expected<std::unique_ptr<llvm::Module>> parseIR(llvm::MemoryBufferRef input, llvm::LLVMContext& context,
                                                std::string_view what) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIR(input, diagnostic, context);
  if (module) return module;
  std::string message;
  llvm::raw_string_ostream os(message);
  diagnostic.print(nullptr, os, false);
  os.flush();
  dropTrailingNewlines(message);
  // IR from an older LLVM is IR all the same: `what` ("neither LLVM IR nor ...") would mislead.
  if (auto hint = llvm_compat::removedConstantExpressionHint(diagnostic.getMessage().str()))
    return Error(ErrorCode::ParseError,
                 "'" + input.getBufferIdentifier().str() + "': " + *hint + " (LLVM says: " + message + ")");
  return Error(ErrorCode::ParseError, std::string(what) + ": " + message);
}

std::string printIR(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  os.flush();
  return text;
}

std::string writeBitcode(const llvm::Module& module) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::WriteBitcodeToFile(module, os);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace detail
}  // namespace memjit::jit
