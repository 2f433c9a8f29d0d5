#include "quick_call.h"

#include <algorithm>

#include "check_record.h"
#include "scalar_packing.h"

namespace memjit::runtime::detail {

bool qualifiesForQuickCalls(const Plan& plan) {
  const CallShape& shape = *plan.call;
  return plan.flat && plan.numDestinations == 0 && shape.unsupported().empty() && !shape.results().viaPointer &&
         shape.numWords() == plan.raw.size() && shape.numWords() <= kQuickMaxWords &&
         std::all_of(plan.raw.begin(), plan.raw.end(), [](const RawParam& p) { return p.scalar || p.ranked; });
}

QuickCall callQuick(const Plan& plan, std::span<const Variant> args) {
  if (args.size() != plan.raw.size()) return {};
  std::uint64_t words[kQuickMaxWords];
  for (std::size_t r = 0; r < args.size(); ++r) {
    const RawParam& p = plan.raw[r];
    const Variant& v = args[r];
    if (p.scalar) {
      // A refused scalar is rare: the general way builds the same message again.
      if (packScalar(p, r, v, words[r])) return {};
      continue;
    }
    if (!v.isBuffer()) return {};
    const Buffer& b = v.buffer();
    // A null data pointer is refused (or, with no elements, passed) by the
    // general way. The descriptor's second word is the aligned pointer.
    if (!b.valid() || static_cast<const std::uint64_t*>(b.descriptor())[1] == 0) return {};
    if (!p.matches(b) || !p.takesAsIs(b)) return {};
    words[r] = reinterpret_cast<std::uintptr_t>(b.descriptor());
  }
  QuickCall done{.called = true, .checkFailed = false, .ret = 0};
  CheckRecord* record = clearedCheckRecord();  // checked mode: report only what this call fails
  plan.call->call(plan.fn, words, &done.ret);
  done.checkFailed = hasFailure(record);
  return done;
}

}  // namespace memjit::runtime::detail
