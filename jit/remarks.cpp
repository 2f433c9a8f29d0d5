// Optimisation remarks: the collector installed during optimisation and the
// per-loop summary of the loop vectoriser's remarks.
#include "memjit/jit/remarks.h"

#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LLVMContext.h>

#include "accumulator_jam.h"
#include "remark_collector.h"

namespace memjit::jit {
namespace {

constexpr llvm::StringLiteral kLoopVectorize("loop-vectorize");

// With vectorisation hints (LoopOptions' width, forced vectorisation) LLVM
// emits the loop vectoriser's analysis remarks under the "always print" pass
// name instead of "loop-vectorize"; their identifiers are the vectoriser's.
bool isLoopVectorizerRemark(const llvm::DiagnosticInfoOptimizationBase& remark) {
  if (remark.getPassName() == kLoopVectorize) return true;
  const auto* analysis = llvm::dyn_cast<llvm::OptimizationRemarkAnalysis>(&remark);
  return analysis && analysis->shouldAlwaysPrint();
}

class CollectingHandler final : public llvm::DiagnosticHandler {
 public:
  CollectingHandler(std::vector<Remark>& out, std::unique_ptr<llvm::DiagnosticHandler>& previous)
      : out_(out), previous_(previous) {}

  bool isAnalysisRemarkEnabled(llvm::StringRef pass) const override { return pass == kLoopVectorize; }
  bool isMissedOptRemarkEnabled(llvm::StringRef pass) const override { return pass == kLoopVectorize; }
  bool isPassedOptRemarkEnabled(llvm::StringRef pass) const override {
    return pass == kLoopVectorize || pass == detail::kJamRemarkPass;
  }
  bool isAnyRemarkEnabled() const override { return true; }

  bool handleDiagnostics(const llvm::DiagnosticInfo& info) override {
    const auto* remark = llvm::dyn_cast<llvm::DiagnosticInfoOptimizationBase>(&info);
    if (!remark) return previous_ && previous_->handleDiagnostics(info);
    if (isLoopVectorizerRemark(*remark) || remark->getPassName() == detail::kJamRemarkPass)
      out_.push_back(convert(*remark));
    return true;  // a remark of another pass is no one's business here
  }

 private:
  static Remark convert(const llvm::DiagnosticInfoOptimizationBase& remark) {
    Remark r;
    switch (remark.getKind()) {
      case llvm::DK_OptimizationRemark: r.kind = RemarkKind::Passed; break;
      case llvm::DK_OptimizationRemarkMissed: r.kind = RemarkKind::Missed; break;
      default: r.kind = RemarkKind::Analysis; break;
    }
    r.pass = isLoopVectorizerRemark(remark) ? kLoopVectorize.str() : remark.getPassName().str();
    r.name = remark.getRemarkName().str();
    r.function = remark.getFunction().getName().str();
    if (const auto* located = llvm::dyn_cast<llvm::DiagnosticInfoWithLocationBase>(&remark);
        located && located->isLocationAvailable()) {
      r.file = located->getLocation().getAbsolutePath();
      r.line = located->getLocation().getLine();
      r.column = located->getLocation().getColumn();
    }
    r.message = remark.getMsg();
    for (const auto& argument : remark.getArgs()) r.args.push_back({argument.Key, argument.Val});
    return r;
  }

  std::vector<Remark>& out_;
  std::unique_ptr<llvm::DiagnosticHandler>& previous_;
};

const std::string* argument(const Remark& remark, std::string_view key) {
  for (const RemarkArgument& a : remark.args)
    if (a.key == key) return &a.value;
  return nullptr;
}

// "16" or "vscale x 4" (an ElementCount as LLVM prints it).
void readWidth(const std::string& text, LoopVectorization& loop) {
  constexpr std::string_view kScalable = "vscale x ";
  loop.scalable = text.rfind(kScalable, 0) == 0;
  loop.width = static_cast<unsigned>(std::stoul(loop.scalable ? text.substr(kScalable.size()) : text));
}

// The remark that ends the vectoriser's report on a loop: it vectorised or
// interleaved it, or gave up (MissedDetails after a legality failure; the
// interleaving verdict after the cost model said no to both).
bool endsLoop(const Remark& r) {
  if (r.kind == RemarkKind::Passed) return true;
  return r.kind == RemarkKind::Missed &&
         (r.name == "MissedDetails" || r.name == "MissedExplicitlyDisabled" || r.name.rfind("Interleaving", 0) == 0);
}

void addReason(LoopVectorization& loop, std::string message) {
  constexpr std::string_view kPrefix = "loop not vectorized: ";
  if (message.rfind(kPrefix, 0) == 0) message.erase(0, kPrefix.size());
  if (message.empty() || message == "loop not vectorized") return;
  if (loop.reason.find(message) != std::string::npos) return;
  loop.reason += (loop.reason.empty() ? "" : "; ") + message;
}

}  // namespace

const char* remarkKindName(RemarkKind kind) noexcept {
  switch (kind) {
    case RemarkKind::Passed: return "passed";
    case RemarkKind::Missed: return "missed";
    case RemarkKind::Analysis: return "analysis";
  }
  return "?";
}

std::vector<LoopVectorization> loopVectorization(const std::vector<Remark>& remarks) {
  std::vector<LoopVectorization> loops;
  bool open = false;
  for (const Remark& r : remarks) {
    if (r.pass != kLoopVectorize.str()) continue;
    // Emitted after the verdict on the loop it describes, at a conversion's location, not the loop's.
    if (r.name == "VectorMixedPrecision" && !loops.empty() && loops.back().function == r.function) {
      if (loops.back().notes.find(r.message) == std::string::npos)
        loops.back().notes += (loops.back().notes.empty() ? "" : "; ") + r.message;
      continue;
    }
    const bool sameLoop = open && loops.back().function == r.function && loops.back().file == r.file &&
                          loops.back().line == r.line && loops.back().column == r.column;
    if (!sameLoop) {
      loops.emplace_back();
      loops.back().function = r.function;
      loops.back().file = r.file;
      loops.back().line = r.line;
      loops.back().column = r.column;
    }
    LoopVectorization& loop = loops.back();
    open = !endsLoop(r);
    if (r.kind == RemarkKind::Passed) {
      loop.vectorized = r.name == "Vectorized";
      if (const std::string* width = argument(r, "VectorizationFactor")) readWidth(*width, loop);
      else loop.width = 1;  // interleaved only
      if (const std::string* count = argument(r, "InterleaveCount"))
        loop.interleave = static_cast<unsigned>(std::stoul(*count));
    } else {
      addReason(loop, r.message);
    }
  }
  return loops;
}

std::string describe(const LoopVectorization& loop) {
  std::string text;
  if (!loop.file.empty())
    text += loop.file + ":" + std::to_string(loop.line) + ":" + std::to_string(loop.column) + ": ";
  text += "in '" + loop.function + "': ";
  if (loop.vectorized) {
    text += "vectorised, width " + std::string(loop.scalable ? "vscale x " : "") + std::to_string(loop.width);
    if (loop.interleave) text += ", interleave " + std::to_string(loop.interleave);
  } else {
    text += "not vectorised";
    if (loop.interleave > 1) text += " (interleaved " + std::to_string(loop.interleave) + "x)";
    if (!loop.reason.empty()) text += ": " + loop.reason;
  }
  if (!loop.notes.empty()) text += " (note: " + loop.notes + ")";
  return text;
}

namespace detail {

RemarkCollector::RemarkCollector(llvm::LLVMContext& context, std::vector<Remark>& out)
    : context_(context), previous_(context.getDiagnosticHandler()) {
  context_.setDiagnosticHandler(std::make_unique<CollectingHandler>(out, previous_));
}

RemarkCollector::~RemarkCollector() { context_.setDiagnosticHandler(std::move(previous_)); }

}  // namespace detail
}  // namespace memjit::jit
