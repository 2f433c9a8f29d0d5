// Callable handles: the one-time plan, the typed signature check, and the
// dynamic invoker.
#include "memjit/runtime/callable.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "memjit/runtime/checks.h"
#include "memjit/runtime/oracle.h"
#include "memjit/runtime/result_allocator.h"
#include "memjit/type_syntax.h"
#include "invocation.h"
#include "plan.h"
#include "quick_call.h"
#include "results.h"

namespace memjit::runtime {

using detail::Node;
using detail::Plan;
using detail::RawParam;

void* Callable::cInterface() const noexcept { return plan_ ? plan_->fn : nullptr; }

const signature::FunctionSignature& Callable::signature() const {
  static const signature::FunctionSignature empty;
  return plan_ ? plan_->sig : empty;
}

// ---------------------------------------------------------------------------
// Creation

static RawParam makeRawParam(const Type& t) {
  RawParam p;
  p.type = t;
  p.expected = describeExpected(t);
  if (const auto* e = std::get_if<ElementType>(&t)) {
    p.scalar = true;
    p.element = *e;
  } else if (const auto* u = std::get_if<UnrankedMemRefType>(&t)) {
    p.unranked = true;
    p.element = u->element;
  } else {
    const auto& m = std::get<MemRefType>(t);
    p.ranked = true;
    p.element = m.element();
    p.rank = static_cast<std::int64_t>(m.rank());
    p.staticDims = m.shape();
    p.anyStaticDim = std::any_of(p.staticDims.begin(), p.staticDims.end(), [](std::int64_t d) { return d != kDynamic; });
    p.identity = m.hasIdentityLayout();
    p.strides = m.effectiveStrides();
    p.offset = m.effectiveOffset();
  }
  return p;
}

Expected<Callable> Callable::create(void* cInterface, signature::FunctionSignature sig, void* resultAllocator) {
  if (!cInterface)
    return Error(ErrorCode::InvalidArgument, "function '" + sig.name + "': null C-interface pointer");
  auto plan = std::make_shared<Plan>();
  plan->fn = cInterface;
  plan->sig = std::move(sig);
  const FunctionType& type = plan->sig.type;
  if (plan->sig.resultAllocator) {
    auto user = userFacingType(type);
    if (!user) return user.error().withContext("function '" + plan->sig.name + "'");
    plan->userType = std::move(*user);
    plan->numDestinations = numDestinations(type);
  } else {
    plan->userType = type;
  }
  for (const auto& t : plan->userType.inputs) {
    plan->raw.push_back(makeRawParam(t));
    plan->numUnranked += plan->raw.back().unranked ? 1 : 0;
  }
  plan->call = std::make_unique<detail::CallShape>(type);
  MEMJIT_TRY(detail::buildStructure(*plan));
  plan->quick = detail::qualifiesForQuickCalls(*plan);
  if (resultAllocator && plan->sig.resultAllocator) {
    MEMJIT_ASSIGN_OR_RETURN(plan->allocatorType, allocatorType(type));
    plan->allocator = resultAllocator;
    plan->allocatorCall = std::make_unique<detail::CallShape>(plan->allocatorType);
  }
  Callable f;
  f.plan_ = std::move(plan);
  return f;
}

Expected<Callable> Callable::fromTypeText(void* cInterface, std::string name, std::string_view text) {
  auto type = parseFunctionType(text);
  if (!type) return type.error().withContext("function '" + name + "' type");
  MEMJIT_ASSIGN_OR_RETURN(auto sig, signature::describe(std::move(name), *type));
  return create(cInterface, std::move(sig));
}

// ---------------------------------------------------------------------------
// The typed check

namespace detail {

static std::string slotText(const TypedSlot& s) {
  std::string e(spelling(s.element));
  switch (s.kind) {
    case TypedSlot::Kind::Scalar: return e;
    case TypedSlot::Kind::Unranked: return "UnrankedMemRef<" + e + ">";
    case TypedSlot::Kind::Ranked: return "StridedMemRef<" + e + ", " + std::to_string(s.rank) + ">";
  }
  return e;
}

static bool slotMatches(const TypedSlot& s, const Type& t) {
  switch (s.kind) {
    case TypedSlot::Kind::Scalar: {
      const auto* e = std::get_if<ElementType>(&t);
      return e && elementTypesCompatible(*e, s.element);
    }
    case TypedSlot::Kind::Unranked: {
      const auto* u = std::get_if<UnrankedMemRefType>(&t);
      return u && elementTypesCompatible(u->element, s.element);
    }
    case TypedSlot::Kind::Ranked: {
      const auto* m = std::get_if<MemRefType>(&t);
      return m && static_cast<int>(m->rank()) == s.rank && elementTypesCompatible(m->element(), s.element);
    }
  }
  return false;
}

Error checkTypedSignature(const signature::FunctionSignature& sig, const TypedSlot* params, std::size_t numParams,
                          const TypedSlot* results, std::size_t numResults) {
  const FunctionType& t = sig.type;
  std::string where = "typed invoker for '" + sig.name + "' " + toString(t);
  if (numParams != t.inputs.size())
    return Error(ErrorCode::ArityMismatch, where + ": the C++ signature has " + std::to_string(numParams) +
                                               " parameters, the function takes " + std::to_string(t.inputs.size()));
  if (numResults != t.results.size())
    return Error(ErrorCode::ArityMismatch, where + ": the C++ signature has " + std::to_string(numResults) +
                                               " results, the function returns " + std::to_string(t.results.size()));
  for (std::size_t i = 0; i < numParams; ++i)
    if (!slotMatches(params[i], t.inputs[i]))
      return Error(ErrorCode::TypeMismatch, where + ": parameter " + std::to_string(i) + " is " + toString(t.inputs[i]) +
                                                ", the C++ signature passes " + slotText(params[i]));
  for (std::size_t i = 0; i < numResults; ++i) {
    if (!slotMatches(results[i], t.results[i]))
      return Error(ErrorCode::TypeMismatch, where + ": result " + std::to_string(i) + " is " + toString(t.results[i]) +
                                                ", the C++ signature expects " + slotText(results[i]));
  }
  return Error::success();
}

}  // namespace detail

// ---------------------------------------------------------------------------
// The dynamic invoker: the quick way when nothing needs adapting
// (quick_call.h), else bind -> pack -> destinations -> call -> copy back ->
// unpack (invocation.h, results.h).

namespace {

// Kept out of line: the general way's Invocation needs a frame of about 1.4 KB,
// which the quick way would otherwise set up (and spill registers into) on
// every call.
[[gnu::noinline]] Expected<Variant> invokeGeneral(const detail::Plan& plan, std::span<const Variant> args,
                                                  std::span<const std::pair<std::string, Variant>> kwargs,
                                                  const InvokeOptions& options) {
  if (!plan.call->unsupported().empty())
    return Error(ErrorCode::Unsupported, "invoke '" + plan.sig.name + "': " + plan.call->unsupported());
  detail::Invocation call(plan, options);
  MEMJIT_TRY(call.bind(args, kwargs));
  MEMJIT_TRY(call.packInputs());
  MEMJIT_TRY(call.packDestinations());
  call.call();
  MEMJIT_TRY(call.copyBack());
  // A checked function stopped at a failed check; its results are zeros.
  if (checkFailed()) return takeCheckFailure();
  return detail::unpackResults(plan, call.returned());
}

}  // namespace

Expected<Variant> Callable::invoke(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs,
                                 const InvokeOptions& options) const {
  if (!plan_) return Error(ErrorCode::InvalidArgument, "invoke: empty function handle");
  const Plan& plan = *plan_;
  if (plan.quick && kwargs.empty()) {
    if (detail::QuickCall q = detail::callQuick(plan, args); q.called) {
      if (q.checkFailed) return takeCheckFailure();
      if (plan.userType.results.empty()) return Variant();
      return detail::unpackResults(plan, {.word = q.ret, .block = nullptr, .passed = {}});
    }
  }
  return invokeGeneral(plan, args, kwargs, options);
}

}  // namespace memjit::runtime
