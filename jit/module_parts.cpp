#include "module_parts.h"

#include "compile.h"
#include "large_functions.h"
#include "llvm_error.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <memory>
#include <optional>
#include <unordered_set>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueMap.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

namespace memjit::jit::detail {
namespace {

bool isOutlined(const llvm::Function& function) {
  return !function.isDeclaration() && function.hasFnAttribute(kOutlinedLoopsAttribute);
}

// What one part defines: its outlined functions, and copies of the internal
// functions and constants they use (found by walking their operands).
class PartContents {
 public:
  // False when a function of the part uses what a part cannot hold (see ModuleSplit).
  bool add(llvm::Function& outlined) {
    defined_.insert(&outlined);
    return walkFunction(outlined);
  }
  std::unordered_set<const llvm::GlobalValue*> take() && { return std::move(defined_); }

 private:
  bool walkFunction(const llvm::Function& function) {
    for (const llvm::BasicBlock& block : function)
      for (const llvm::Instruction& inst : block)
        for (const llvm::Value* operand : inst.operands())
          if (!walkValue(operand)) return false;
    return true;
  }

  bool walkValue(const llvm::Value* value) {
    const auto* constant = llvm::dyn_cast<llvm::Constant>(value);
    if (!constant || llvm::isa<llvm::ConstantData>(constant)) return true;
    if (!seen_.insert(constant).second) return true;
    if (const auto* global = llvm::dyn_cast<llvm::GlobalValue>(constant)) return walkGlobal(*global);
    for (const llvm::Value* operand : constant->operands())
      if (!walkValue(operand)) return false;
    return true;
  }

  bool walkGlobal(const llvm::GlobalValue& global) {
    if (global.isDeclaration()) return !global.isThreadLocal();
    // One definition for the whole module, elsewhere: only a strong, external one can be linked to.
    if (global.hasWeakLinkage() || global.hasLinkOnceLinkage() || global.hasCommonLinkage() || global.hasComdat() ||
        global.hasAppendingLinkage() || global.isThreadLocal() || global.hasAvailableExternallyLinkage())
      return false;
    if (const auto* function = llvm::dyn_cast<llvm::Function>(&global)) {
      if (!function->hasLocalLinkage()) return true;
      if (function->hasFnAttribute(kOutlinedLoopsAttribute)) return false;  // never seen: loops do not call loops
      defined_.insert(function);
      return walkFunction(*function);
    }
    const auto* variable = llvm::dyn_cast<llvm::GlobalVariable>(&global);
    if (!variable) return false;  // aliases and ifuncs
    if (!variable->hasLocalLinkage()) return true;
    // A copy of an internal global would be a second variable: only constants can be copied.
    if (!variable->isConstant()) return false;
    defined_.insert(variable);
    return walkValue(variable->getInitializer());
  }

  std::unordered_set<const llvm::GlobalValue*> defined_;
  std::unordered_set<const llvm::Constant*> seen_;
};

bool splittable(const llvm::Module& module) {
  if (!module.getModuleInlineAsm().empty()) return false;
  for (const llvm::GlobalVariable& variable : module.globals())
    if (variable.hasAppendingLinkage()) return false;
  return true;
}

}  // namespace

std::optional<ModuleSplit> ModuleSplit::plan(llvm::Module& module, std::size_t above, std::size_t perPart) {
  std::vector<std::vector<llvm::Function*>> groups;
  std::size_t total = 0;
  std::size_t groupSize = 0;
  for (llvm::Function& function : module) {
    if (!isOutlined(function)) continue;
    const std::size_t size = function.getInstructionCount();
    if (groups.empty() || groupSize + size > perPart) {
      groups.emplace_back();
      groupSize = 0;
    }
    groups.back().push_back(&function);
    groupSize += size;
    total += size;
  }
  if (total <= above || !splittable(module)) return std::nullopt;
  std::vector<std::unordered_set<const llvm::GlobalValue*>> defined;
  defined.reserve(groups.size());
  for (const auto& group : groups) {
    PartContents part;
    for (llvm::Function* function : group)
      if (!part.add(*function)) return std::nullopt;
    defined.push_back(std::move(part).take());
  }
  // Called by name from the rest of the module (and from nowhere else: it is a new symbol table's).
  for (const auto& group : groups)
    for (llvm::Function* function : group) {
      function->setLinkage(llvm::GlobalValue::ExternalLinkage);
      function->setVisibility(llvm::GlobalValue::HiddenVisibility);
      function->setDSOLocal(true);
    }
  return ModuleSplit(module, std::move(groups), std::move(defined));
}

std::string ModuleSplit::writePart(std::size_t k) const {
  const auto& defined = defined_.at(k);
  llvm::ValueToValueMapTy map;
  // Declarations of what the part does not use are left to its GlobalDCE.
  std::unique_ptr<llvm::Module> copy =
      llvm::CloneModule(*module_, map, [&](const llvm::GlobalValue* value) { return defined.count(value) != 0; });
  return writeBitcode(*copy);
}

void ModuleSplit::removeParts() {
  for (const auto& group : groups_)
    for (llvm::Function* function : group) {
      function->deleteBody();  // a declaration now, still hidden and local to the symbol table
      function->setVisibility(llvm::GlobalValue::HiddenVisibility);
      function->setDSOLocal(true);
    }
  groups_.clear();
  defined_.clear();
}

namespace {

Expected<std::string> compilePartOwnContext(const std::string& bitcode, std::size_t index,
                                            const std::function<Expected<std::string>(llvm::Module&, std::size_t)>& compile) {
  llvm::LLVMContext context;
  const std::string name = "part " + std::to_string(index + 1);
  auto module = llvm::parseBitcodeFile(llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), name),
                                       context);
  if (!module) return fromLLVM(module.takeError(), ErrorCode::Internal, "cannot read back " + name + " of a module");
  auto object = compile(**module, index);
  module->reset();  // before its context
  return object;
}

}  // namespace

Expected<std::vector<std::string>> compileInParts(
    ModuleSplit& split, unsigned threads, const std::function<Expected<std::string>()>& compileRest,
    const std::function<Expected<std::string>(llvm::Module& part, std::size_t index)>& compilePart) {
  const std::size_t count = split.parts();
  std::vector<std::optional<Expected<std::string>>> results(count + 1);
  // Written by the calling thread, part by part; each is freed once compiled.
  std::vector<std::string> bitcode(count);
  std::vector<bool> written(count, false);
  std::mutex mutex;
  std::condition_variable partWritten;
  std::atomic<std::size_t> next{0};
  // Every thread takes the next part until none is left: parts differ in size.
  auto drain = [&] {
    for (std::size_t k = next.fetch_add(1); k < count; k = next.fetch_add(1)) {
      std::string part;
      {
        std::unique_lock<std::mutex> lock(mutex);
        partWritten.wait(lock, [&] { return written[k]; });
        part = std::move(bitcode[k]);
      }
      results[k + 1].emplace(compilePartOwnContext(part, k, compilePart));
    }
  };
  const unsigned wanted = threads ? threads : llvm::hardware_concurrency().compute_thread_count();
  const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(std::max(wanted, 1u) - 1, count));
  std::optional<llvm::StdThreadPool> pool;
  if (helpers > 0) {
    pool.emplace(llvm::hardware_concurrency(helpers));
    for (unsigned i = 0; i < helpers; ++i) pool->async(drain);
  }
  for (std::size_t k = 0; k < count; ++k) {
    std::string part = split.writePart(k);
    {
      std::lock_guard<std::mutex> lock(mutex);
      bitcode[k] = std::move(part);
      written[k] = true;
    }
    partWritten.notify_all();
  }
  split.removeParts();
  results[0].emplace(compileRest());
  drain();
  if (pool) pool->wait();
  std::vector<std::string> objects;
  objects.reserve(results.size());
  for (auto& result : results) {
    if (!*result) return result->error();
    objects.push_back(std::move(**result));
  }
  return objects;
}

}  // namespace memjit::jit::detail
