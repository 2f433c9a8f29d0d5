// Tiered compilation: the first tier's renaming and call counting, the stubs
// every handle holds, the background worker and the swap (see tiering.h).
#include "tiering.h"
#include "first_tier_bodies.h"
#include "first_tier_isel.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <utility>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "compile.h"
#include "engine.h"
#include "llvm_error.h"
#include "object_archive.h"
#include "memjit/metadata_symbols.h"
#include "session_errors.h"

namespace memjit::jit::detail {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::string_view kFirstTierSuffix = ".memjit.tier0";

std::string firstTierName(const std::string& name) { return name + std::string(kFirstTierSuffix); }

// What the first tier's C interfaces call when the call threshold is reached.
void tierUpThresholdReached(void* tiered) { static_cast<TieredModule*>(tiered)->request(); }

llvm::Constant* addressOf(llvm::LLVMContext& context, const void* address) {
  auto* integer = llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), reinterpret_cast<std::uintptr_t>(address));
  return llvm::ConstantExpr::getIntToPtr(integer, llvm::PointerType::getUnqual(context));
}

// At the interface's entry (after its allocas): count the call, and on the
// threshold'th ask for the tier-up. The counter and the request live in the
// TieredModule, which outlives the code (it dies with the module's state).
void countCalls(llvm::Function& function, TieredModule& tiered) {
  llvm::LLVMContext& context = function.getContext();
  llvm::BasicBlock& entry = function.getEntryBlock();
  llvm::IRBuilder<> builder(&entry, entry.getFirstNonPHIOrDbgOrAlloca());
  llvm::Value* before = builder.CreateAtomicRMW(llvm::AtomicRMWInst::Add, addressOf(context, &tiered.calls),
                                                builder.getInt32(1), llvm::MaybeAlign(4),
                                                llvm::AtomicOrdering::Monotonic);
  llvm::Value* reached = builder.CreateICmpEQ(before, builder.getInt32(tiered.callThreshold - 1));
  llvm::Instruction* then = llvm::SplitBlockAndInsertIfThen(reached, builder.GetInsertPoint(), false);
  builder.SetInsertPoint(then);
  auto* requestType =
      llvm::FunctionType::get(builder.getVoidTy(), {llvm::PointerType::getUnqual(context)}, false);
  builder.CreateCall(requestType, addressOf(context, reinterpret_cast<const void*>(&tierUpThresholdReached)),
                     {addressOf(context, &tiered)});
}

}  // namespace

// ---- the worker ----

struct TierUpWorker::Queue {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::pair<Clock::time_point, std::function<void()>>> jobs;
  bool stop = false;
};

TierUpWorker::TierUpWorker() : queue_(std::make_shared<Queue>()) {
  thread_ = std::thread([queue = queue_] {
    // Tier-ups are for later: under contention the application's threads
    // (such as one making its first call) go first. Linux applies a nice
    // value to the calling thread only; failing to lower it changes nothing else.
    const auto self = static_cast<id_t>(::syscall(SYS_gettid));
    errno = 0;
    const int nice = ::getpriority(PRIO_PROCESS, self);
    if (errno == 0) (void)::setpriority(PRIO_PROCESS, self, std::min(nice + 10, 19));
    std::unique_lock<std::mutex> lock(queue->mutex);
    while (!queue->stop) {
      if (queue->jobs.empty()) {
        queue->wake.wait(lock);
        continue;
      }
      if (Clock::now() < queue->jobs.front().first) {
        queue->wake.wait_until(lock, queue->jobs.front().first);
        continue;
      }
      std::function<void()> job = std::move(queue->jobs.front().second);
      queue->jobs.pop_front();
      lock.unlock();
      job();
      job = nullptr;  // may release the Jit's last owner, which stops this worker: no lock held
      lock.lock();
    }
  });
}

TierUpWorker::~TierUpWorker() {
  std::deque<std::pair<Clock::time_point, std::function<void()>>> dropped;
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stop = true;
    dropped.swap(queue_->jobs);
  }
  queue_->wake.notify_all();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach();
  else
    thread_.join();
}

void TierUpWorker::post(Clock::time_point notBefore, std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->jobs.emplace_back(notBefore, std::move(job));
  }
  queue_->wake.notify_all();
}

// ---- one tiered module ----

TieredModule::~TieredModule() {
  if (optimised_) llvm::consumeError(session->removeJITDylib(*optimised_));
}

void TieredModule::request() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (requested_) return;
    requested_ = true;
  }
  std::shared_ptr<ModuleState> state = owner.lock();
  if (!state) return;
  std::shared_ptr<JitCore> core = state->core;
  const Clock::time_point notBefore = added + core->options.tiering.delay;
  tierUpWorker(*core).post(notBefore, [weak = owner] {
    std::shared_ptr<ModuleState> state = weak.lock();
    if (!state) return;  // freed before its turn
    // Declared so that the record goes before the core it needs to free its code.
    std::shared_ptr<JitCore> core = state->core;
    std::shared_ptr<TieredModule> tiered = state->tiered;
    state.reset();  // removing the module during the compile frees it at once
    tiered->tierUp();
  });
}

Tier TieredModule::tier() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return tier_;
}

Error TieredModule::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return tier_ != Tier::First; });
  return failure_;
}

void TieredModule::finish(Error failure) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tier_ = failure ? Tier::FirstTierOnly : Tier::Optimised;
    failure_ = std::move(failure);
  }
  done_.notify_all();
}

void TieredModule::tierUp() {
  std::shared_ptr<ModuleState> state = owner.lock();
  if (!state) return;
  std::shared_ptr<JitCore> core = state->core;
  const std::string moduleName = state->name;
  const std::string dylibName = "memjit.module." + std::to_string(state->serial) + "." + moduleName + ".tier-up";
  llvm::orc::JITDylib* firstTier = state->dylib;
  state.reset();

  CompileStats stats;
  auto object = compileFinalTier(*core, *this, moduleName, stats);
  if (!object) return finish(object.error().withContext("tier-up of module '" + moduleName + "'"));
  state = owner.lock();
  if (!state) return;  // freed while compiling: nothing calls it any more

  llvm::orc::LLJIT& lljit = *core->lljit;
  auto dylib = lljit.createJITDylib(dylibName);
  if (!dylib)
    return finish(fromLLVM(dylib.takeError(), ErrorCode::Internal,
                           "cannot create the tier-up namespace of module '" + moduleName + "'"));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    optimised_ = &*dylib;
  }
  // The optimised code resolves its externals as the first tier did, minus the first tier itself.
  llvm::orc::JITDylibSearchOrder order;
  firstTier->withLinkOrderDo([&](const llvm::orc::JITDylibSearchOrder& links) {
    for (const auto& link : links)
      if (link.first != firstTier) order.push_back(link);
  });
  dylib->setLinkOrder(std::move(order), /*LinkAgainstThisJITDylibFirst=*/true);
  auto objects = objectsIn(**object);
  if (!objects) return finish(objects.error().withContext("tier-up of module '" + moduleName + "'"));
  for (std::string_view bytes : *objects)
    if (auto err = lljit.addObjectFile(
            *dylib, llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(bytes.data(), bytes.size()), moduleName)))
      return finish(fromOrc(std::move(err), "cannot add the tier-up of module '" + moduleName + "'"));
  llvm::orc::SymbolLookupSet names;
  for (const std::string& name : exported) names.add(lljit.mangleAndIntern(name));
  clearSessionErrors();
  auto addresses = lljit.getExecutionSession().lookup(
      llvm::orc::makeJITDylibSearchOrder(&*dylib, llvm::orc::JITDylibLookupFlags::MatchAllSymbols),
      std::move(names));
  (void)takeSessionErrors();
  if (!addresses)
    return finish(fromOrc(addresses.takeError(), "cannot link the tier-up of module '" + moduleName + "'"));
  for (const std::string& name : exported) {
    auto it = addresses->find(lljit.mangleAndIntern(name));
    if (it == addresses->end()) continue;
    // An atomic store (LocalIndirectStubsManager): a call already past its
    // stub finishes in the first tier, the next one jumps to the new code.
    if (auto err = stubs->updatePointer(name, it->second.getAddress()))
      return finish(fromLLVM(std::move(err), ErrorCode::Internal,
                             "cannot redirect '" + name + "' of module '" + moduleName + "'"));
  }
  finish(Error::success());
}

// ---- adding a module in tiers ----

TierUpWorker& tierUpWorker(JitCore& core) {
  std::lock_guard<std::mutex> lock(core.mutex);
  if (!core.tierUp) core.tierUp = std::make_shared<TierUpWorker>();
  return *core.tierUp;
}

OptLevel firstTierLevel(const JitCore& core) { return core.options.tiering.firstTier; }

bool tieringApplies(const JitCore& core, const llvm::Module& module, const AddOptions& options) {
  if (!options.tiered.value_or(core.options.tiering.enabled) || !options.runIRPasses) return false;
  const OptLevel ir = options.optLevel.value_or(core.options.optLevel);
  const OptLevel codegen = options.codegenLevel.value_or(ir);
  const OptLevel first = firstTierLevel(core);
  if (ir <= first && codegen <= first) return false;
  if (!module.alias_empty() || !module.ifunc_empty()) return false;
  for (const llvm::GlobalVariable& global : module.globals())
    if (!global.isDeclaration() && !global.isConstant()) return false;
  for (const llvm::Function& function : module)
    if (!function.isDeclaration() && !function.hasLocalLinkage()) return true;
  return false;
}

Expected<std::shared_ptr<TieredModule>> prepareFirstTier(JitCore& core, std::unique_ptr<llvm::Module>& handed,
                                                        const AddOptions& options, const std::string& cacheKey,
                                                        std::vector<LaterInlining> inlineOnTierUp) {
  auto tiered = std::make_shared<TieredModule>();
  tiered->inlineOnTierUp = std::move(inlineOnTierUp);
  tiered->verifyOnTierUp = hasFirstTierBodies(*handed);
  if (tiered->verifyOnTierUp) {
    // Copying sgemm's 13K-line kernel cost a quarter of its first tier's add.
    std::unique_ptr<llvm::Module> first = cloneForFirstTier(*handed);
    tiered->module = std::move(handed);
    handed = std::move(first);
  } else {
    tiered->module = llvm::CloneModule(*handed);
  }
  llvm::Module& module = *handed;
  tiered->cacheKey = cacheKey;
  tiered->options.optLevel = options.optLevel.value_or(core.options.optLevel);
  tiered->options.codegenLevel = options.codegenLevel;
  tiered->options.runIRPasses = options.runIRPasses;
  tiered->callThreshold = core.options.tiering.callThreshold;
  // Before the call counters go in: a replaced body would take its counter along.
  useFirstTierBodies(module);
  // After the bodies: a replaced interface no longer calls its expanded function.
  spliceDeferredEntries(module, tiered->inlineOnTierUp);
  if (tiered->verifyOnTierUp) MEMJIT_TRY(verify(module));
  for (llvm::Function& function : module) {
    if (function.isDeclaration() || function.hasLocalLinkage()) continue;
    const std::string name = function.getName().str();
    tiered->exported.push_back(name);
    function.setName(firstTierName(name));
    if (tiered->callThreshold > 0 && std::string_view(name).starts_with(metadata::kCInterfacePrefix))
      countCalls(function, *tiered);
  }
  // The first tier is selected by FastISel at O0: what it cannot select would
  // send whole blocks to SelectionDAG (first_tier_isel.h).
  // The rewrites read field offsets and alignments: the layout the code
  // generator will set (prepareModule), not a builder module's default one.
  if (firstTierLevel(core) == OptLevel::O0) {
    module.setDataLayout(core.lljit->getDataLayout());
    makeSelectableByFastISel(module);
  }
  return tiered;
}

void renameDefined(const TieredModule& tiered, std::vector<std::string>& defined) {
  for (std::string& name : defined)
    if (std::find(tiered.exported.begin(), tiered.exported.end(), name) != tiered.exported.end())
      name = firstTierName(name);
}

Error publishFirstTier(const std::shared_ptr<ModuleState>& owner, const std::shared_ptr<TieredModule>& tiered) {
  ModuleState& state = *owner;
  llvm::orc::LLJIT& lljit = *state.core->lljit;
  tiered->session = &lljit.getExecutionSession();
  tiered->stubs = llvm::orc::createLocalIndirectStubsManagerBuilder(lljit.getTargetTriple())();
  if (!tiered->stubs)
    return Error(ErrorCode::Internal, "module '" + state.name + "': no indirect stubs for this target");
  const auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  llvm::orc::IndirectStubsManager::StubInitsMap inits;
  for (const std::string& name : tiered->exported) {
    auto it = state.symbols.find(firstTierName(name));
    if (it == state.symbols.end())
      return Error(ErrorCode::Internal, "module '" + state.name + "': the first tier lost '" + name + "'");
    inits[name] = {llvm::orc::ExecutorAddr::fromPtr(it->second), flags};
  }
  if (auto err = tiered->stubs->createStubs(inits))
    return fromLLVM(std::move(err), ErrorCode::Internal, "cannot make the stubs of module '" + state.name + "'");
  llvm::orc::SymbolMap stubSymbols;
  for (const std::string& name : tiered->exported) {
    const llvm::orc::ExecutorAddr stub = tiered->stubs->findStub(name, false).getAddress();
    stubSymbols[lljit.mangleAndIntern(name)] = {stub, flags};
    state.symbols.erase(firstTierName(name));
    state.symbols[name] = stub.toPtr<void*>();
  }
  if (auto err = state.dylib->define(llvm::orc::absoluteSymbols(std::move(stubSymbols))))
    return fromOrc(std::move(err), "cannot define the stubs of module '" + state.name + "'");
  state.tiered = tiered;
  tiered->owner = owner;
  tiered->added = Clock::now();
  if (tiered->callThreshold == 0) tiered->request();
  return Error::success();
}

}  // namespace memjit::jit::detail

namespace memjit::jit {

const char* tierName(Tier tier) noexcept {
  switch (tier) {
    case Tier::Optimised: return "Optimised";
    case Tier::First: return "First";
    case Tier::FirstTierOnly: return "FirstTierOnly";
  }
  return "?";
}

Tier currentTier(const LoadedModule& module) noexcept {
  if (!module.valid() || !module.state()->tiered) return Tier::Optimised;
  return module.state()->tiered->tier();
}

void requestTierUp(const LoadedModule& module) {
  if (module.valid() && module.state()->tiered) module.state()->tiered->request();
}

Error waitForTierUp(const LoadedModule& module) {
  if (!module.valid()) return Error(ErrorCode::InvalidArgument, "waitForTierUp: empty module handle");
  if (!module.state()->tiered) return Error::success();
  return module.state()->tiered->wait();
}

}  // namespace memjit::jit
