#include "vector_math.h"

#include "llvm_compat.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <memory>
#include <mutex>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

namespace memjit::jit::detail {
namespace {

// libmvec's functions of one or two vector arguments (glibc 2.35+), by their
// double names; the float ones add 'f'. sincos is left out: it returns
// through pointers.
struct Function {
  const char* name;
  unsigned arity;
  const char* intrinsic;  // LLVM's intrinsic for it (llvm.<x>.f32/f64), or null
};
constexpr Function kFunctions[] = {
    {"acos", 1, "acos"},   {"acosh", 1, nullptr}, {"asin", 1, "asin"},    {"asinh", 1, nullptr},
    {"atan", 1, "atan"},   {"atanh", 1, nullptr}, {"atan2", 2, "atan2"},  {"cbrt", 1, nullptr},
    {"cos", 1, "cos"},     {"cosh", 1, "cosh"},   {"erf", 1, nullptr},    {"erfc", 1, nullptr},
    {"exp", 1, "exp"},     {"exp10", 1, "exp10"}, {"exp2", 1, "exp2"},    {"expm1", 1, nullptr},
    {"hypot", 2, nullptr}, {"log", 1, "log"},     {"log10", 1, "log10"},  {"log1p", 1, nullptr},
    {"log2", 1, "log2"},   {"pow", 2, "pow"},     {"sin", 1, "sin"},      {"sinh", 1, "sinh"},
    {"tan", 1, "tan"},     {"tanh", 1, "tanh"},
};

// The x86-64 vector function ABI's ISA letters and their register widths.
struct Isa {
  char letter;
  unsigned bits;
  const char* feature;  // what the CPU needs, or null for baseline SSE2
};
constexpr Isa kIsas[] = {{'b', 128, nullptr}, {'d', 256, "+avx2"}, {'e', 512, "+avx512f"}};

struct Variant {
  std::string scalar, vector, prefix;
  unsigned lanes;
  const Isa* isa;
};

// Every variant, built once: VecDesc keeps StringRefs into these strings.
const std::deque<Variant>& variants() {
  static const std::deque<Variant> all = [] {
    std::deque<Variant> out;
    for (const Isa& isa : kIsas)
      for (const Function& f : kFunctions)
        for (bool single : {false, true}) {
          const unsigned lanes = isa.bits / (single ? 32 : 64);
          const std::string args(f.arity, 'v');
          const std::string name = std::string(f.name) + (single ? "f" : "");
          const std::string vector =
              std::string("_ZGV") + isa.letter + "N" + std::to_string(lanes) + args + "_" + name;
          const std::string prefix = "_ZGV_LLVM_N" + std::to_string(lanes) + args;
          out.push_back({name, vector, prefix, lanes, &isa});
          if (f.intrinsic)
            out.push_back({std::string("llvm.") + f.intrinsic + (single ? ".f32" : ".f64"), vector, prefix, lanes,
                           &isa});
        }
    return out;
  }();
  return all;
}

}  // namespace

bool hasVectorMathLibrary(const llvm::Triple& triple) {
  return triple.getArch() == llvm::Triple::x86_64 && triple.isOSLinux() &&
         triple.getEnvironment() == llvm::Triple::GNU;
}

void addVectorMathLibrary(llvm::TargetLibraryInfoImpl& tli, const llvm::TargetMachine& machine) {
  if (!hasVectorMathLibrary(machine.getTargetTriple())) return;
  const llvm::MCSubtargetInfo& subtarget = *machine.getMCSubtargetInfo();
  // Asked once per ISA, not per variant: checkFeatures parses its string on
  // every call, and asking it for each of the ~200 variants cost 10 M
  // instructions per module, most of a small kernel's O0 compile.
  bool callable[std::size(kIsas)];
  for (std::size_t i = 0; i < std::size(kIsas); ++i)
    callable[i] = !kIsas[i].feature || subtarget.checkFeatures(kIsas[i].feature);
  std::vector<llvm::VecDesc> descriptions;
  for (const Variant& v : variants()) {
    if (!callable[v.isa - kIsas]) continue;
    descriptions.push_back(
        llvm_compat::vectorFunction(v.scalar, v.vector, llvm::ElementCount::getFixed(v.lanes), false, v.prefix));
  }
  tli.addVectorizableFunctions(descriptions);
}

namespace {

bool isVectorFunction(const llvm::orc::SymbolStringPtr& name) { return (*name).starts_with("_ZGV"); }

// libmvec's symbols, the library loaded on the first lookup of one. Loading
// it (a 1 MB library mapped and relocated) was about a fifth of Jit::create in
// a fresh process (0.08 of 0.48 ms, docs/benchmarks.md); a Jit whose modules
// call no vector math never pays it. Only libmvec's own symbols: dlsym on its
// handle also searches its dependencies, and `malloc` found through libc's
// would bypass the process's allocator (a sanitizer's, or the application's
// own).
class VectorMathGenerator final : public llvm::orc::DefinitionGenerator {
 public:
  explicit VectorMathGenerator(char globalPrefix) : globalPrefix_(globalPrefix) {}

  llvm::Error tryToGenerate(llvm::orc::LookupState& state, llvm::orc::LookupKind kind, llvm::orc::JITDylib& dylib,
                            llvm::orc::JITDylibLookupFlags flags, const llvm::orc::SymbolLookupSet& names) override {
    if (std::none_of(names.begin(), names.end(), [](const auto& entry) { return isVectorFunction(entry.first); }))
      return llvm::Error::success();
    llvm::orc::DefinitionGenerator* library = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!library_) {
        auto loaded = llvm::orc::DynamicLibrarySearchGenerator::Load(kVectorMathLibrary, globalPrefix_,
                                                                     isVectorFunction);
        if (!loaded)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "cannot load the vector math library " + std::string(kVectorMathLibrary) +
                                             " (JitOptions::vectorMath = false compiles without it): " +
                                             llvm::toString(loaded.takeError()));
        library_ = std::move(*loaded);
      }
      library = library_.get();
    }
    return library->tryToGenerate(state, kind, dylib, flags, names);
  }

 private:
  const char globalPrefix_;
  std::mutex mutex_;
  std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator> library_;
};

}  // namespace

void addVectorMathSymbols(llvm::orc::LLJIT& jit, llvm::orc::JITDylib& dylib) {
  if (!hasVectorMathLibrary(jit.getTargetTriple())) return;
  dylib.addGenerator(std::make_unique<VectorMathGenerator>(jit.getDataLayout().getGlobalPrefix()));
}

std::vector<std::string> vectorMathSymbols() {
  std::vector<std::string> out;
  for (const Variant& v : variants())
    if (v.scalar.rfind("llvm.", 0) != 0) out.push_back(v.vector);
  return out;
}

bool keepFramePointerAroundVectorCalls(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  auto wide = [&](llvm::Type* type) {
    return type->isVectorTy() && layout.getTypeStoreSize(type).getKnownMinValue() >= 32;
  };
  auto callsWideVectors = [&](const llvm::Function& function) {
    for (const llvm::BasicBlock& block : function)
      for (const llvm::Instruction& inst : block) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&inst);
        if (!call || (call->getCalledFunction() && call->getCalledFunction()->isIntrinsic())) continue;
        if (wide(call->getType())) return true;
        for (const llvm::Value* arg : call->args())
          if (wide(arg->getType())) return true;
      }
    return false;
  };
  bool changed = false;
  for (llvm::Function& function : module)
    if (!function.isDeclaration() && function.getFnAttribute("frame-pointer").getValueAsString() != "all" &&
        callsWideVectors(function)) {
      function.addFnAttr("frame-pointer", "all");
      changed = true;
    }
  return changed;
}

}  // namespace memjit::jit::detail
