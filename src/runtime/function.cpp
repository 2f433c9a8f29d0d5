// Function handles: the one-time plan, the typed signature check, and the
// dynamic invoker.
#include "memjit/runtime/function.h"

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
#include "plan.h"

namespace memjit::runtime {

using detail::Node;
using detail::Plan;
using detail::RawParam;

void* Function::cInterface() const noexcept { return plan_ ? plan_->fn : nullptr; }

const signature::FunctionSignature& Function::signature() const {
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
    p.identity = m.hasIdentityLayout();
    p.strides = m.effectiveStrides();
    p.offset = m.effectiveOffset();
  }
  return p;
}

Expected<Function> Function::create(void* cInterface, signature::FunctionSignature sig, void* resultAllocator) {
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
  if (resultAllocator && plan->sig.resultAllocator) {
    MEMJIT_ASSIGN_OR_RETURN(plan->allocatorType, allocatorType(type));
    plan->allocator = resultAllocator;
    plan->allocatorCall = std::make_unique<detail::CallShape>(plan->allocatorType);
  }
  Function f;
  f.plan_ = std::move(plan);
  return f;
}

Expected<Function> Function::fromTypeText(void* cInterface, std::string name, std::string_view text) {
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
// The dynamic invoker

namespace {

Error mismatch(const RawParam& p, std::size_t r, const std::string& received, const std::string& extra = "") {
  return Error(ErrorCode::TypeMismatch, p.path + " (raw #" + std::to_string(r) + "): expected " + p.expected +
                                            ", received " + received + extra);
}

// `x` with the shortest digits that identify it in `t` (the diagnostics' "becomes").
std::string floatText(double x, ElementType t) {
  int digits = t == ElementType::F64 ? 17 : t == ElementType::F32 ? 9 : t == ElementType::F16 ? 5 : 4;
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

// Converts a numeric scalar to the float type `want`, refusing a conversion
// that changes the value: an integer or a float that `want` cannot hold
// exactly, or a finite value too large for it. NaN stays NaN.
Error packFloat(const RawParam& p, std::size_t r, const Value& v, ElementType want, std::uint64_t& word) {
  const Scalar& s = v.scalar();
  if (s.type == want && (want == ElementType::F16 || want == ElementType::BF16)) {
    word = s.u & 0xffffu;  // the bits as given, NaN payloads included
    return Error::success();
  }
  const bool fromInt = isInteger(s.type) || s.type == ElementType::Index;
  const __int128 x = isUnsignedInteger(s.type) ? static_cast<__int128>(s.u) : static_cast<__int128>(s.i);
  const double d = fromInt ? 0.0 : s.toDouble();
  double converted;  // the value `want` holds, exactly
  switch (want) {
    case ElementType::F64: {
      converted = fromInt ? static_cast<double>(x) : d;
      std::memcpy(&word, &converted, 8);
      break;
    }
    case ElementType::F32: {
      float f = fromInt ? static_cast<float>(x) : static_cast<float>(d);
      converted = f;
      std::memcpy(&word, &f, 4);
      break;
    }
    case ElementType::F16: {
      f16 h(fromInt ? static_cast<double>(x) : d);  // |x| > 2^53 overflows f16 either way
      converted = h;
      word = h.bits();
      break;
    }
    default: {  // BF16: an integer that double rounds is not a bf16 either, so the check below holds
      bf16 h(fromInt ? static_cast<double>(x) : d);
      converted = h;
      word = h.bits();
      break;
    }
  }
  if (std::isnan(converted)) return Error::success();
  const bool sourceInfinite = !fromInt && std::isinf(d);
  if (std::isinf(converted) && !sourceInfinite)
    return mismatch(p, r, v.describe(), " (out of range: becomes inf in " + rawElementName(want) + ")");
  const bool exact = fromInt ? static_cast<__int128>(converted) == x : converted == d;
  if (!exact)
    return mismatch(p, r, v.describe(), " (not exact in " + rawElementName(want) + ": becomes " +
                                            floatText(converted, want) + ")");
  return Error::success();
}

// Converts a scalar value to the parameter's type, into the low bytes of
// `word`; refuses a conversion that would change the value.
Error packScalar(const RawParam& p, std::size_t r, const Value& v, std::uint64_t& word) {
  if (!v.isScalar()) return mismatch(p, r, v.describe());
  const Scalar& s = v.scalar();
  ElementType want = p.element;
  bool valueIsInt = isInteger(s.type) || s.type == ElementType::Index;
  word = 0;
  if (isFloat(want)) {
    if (!valueIsInt && !isFloat(s.type)) return mismatch(p, r, v.describe());
    return packFloat(p, r, v, want, word);
  }
  if (want == ElementType::Ptr) {
    if (s.type != ElementType::Ptr) return mismatch(p, r, v.describe());
    word = reinterpret_cast<std::uintptr_t>(s.p);
    return Error::success();
  }
  if (!isInteger(want) && want != ElementType::Index) return mismatch(p, r, v.describe());
  // A float for an integer is refused whatever its value, as Python's
  // int-only parameters do: a whole-valued float is usually a mistake too.
  if (!valueIsInt) return mismatch(p, r, v.describe());
  // Range check in 128-bit arithmetic: the value as a mathematical integer.
  __int128 x = isUnsignedInteger(s.type) ? static_cast<__int128>(s.u) : static_cast<__int128>(s.i);
  unsigned bits = want == ElementType::I1 ? 1 : bitWidth(want);
  __int128 lo, hi;
  if (want == ElementType::I1) {
    lo = 0, hi = 1;
  } else if (isSignedInteger(want) || want == ElementType::Index) {
    lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << (bits - 1)) - 1;
  } else if (isUnsignedInteger(want)) {
    lo = 0, hi = (static_cast<__int128>(1) << bits) - 1;
  } else {  // signless: either reading
    lo = -(static_cast<__int128>(1) << (bits - 1)), hi = (static_cast<__int128>(1) << bits) - 1;
  }
  if (x < lo || x > hi) return mismatch(p, r, v.describe(), " (out of range)");
  word = static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
  if (isUnsignedInteger(want) || bits == 1) word = static_cast<std::uint64_t>(x);
  return Error::success();
}

// Reads a scalar result of type `t` stored at `p`.
Value readScalar(ElementType t, const void* p) {
  Scalar s;
  s.type = t;
  switch (t) {
    case ElementType::I1: { std::uint8_t v; std::memcpy(&v, p, 1); s.i = v & 1; break; }
    case ElementType::I8: case ElementType::SI8: { std::int8_t v; std::memcpy(&v, p, 1); s.i = v; break; }
    case ElementType::UI8: { std::uint8_t v; std::memcpy(&v, p, 1); s.u = v; break; }
    case ElementType::I16: case ElementType::SI16: { std::int16_t v; std::memcpy(&v, p, 2); s.i = v; break; }
    case ElementType::UI16: { std::uint16_t v; std::memcpy(&v, p, 2); s.u = v; break; }
    case ElementType::I32: case ElementType::SI32: { std::int32_t v; std::memcpy(&v, p, 4); s.i = v; break; }
    case ElementType::UI32: { std::uint32_t v; std::memcpy(&v, p, 4); s.u = v; break; }
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: std::memcpy(&s.i, p, 8); break;
    case ElementType::UI64: std::memcpy(&s.u, p, 8); break;
    case ElementType::F32: { float v; std::memcpy(&v, p, 4); s.f = v; break; }
    case ElementType::F64: std::memcpy(&s.f, p, 8); break;
    case ElementType::Ptr: std::memcpy(&s.p, p, sizeof(void*)); break;
    default: std::memcpy(&s.u, p, std::min<std::size_t>(8, storageSize(t))); break;
  }
  return Value(s);
}

// Per-call state: parameter words, unranked pairs, temporaries and copy-backs.
struct CallState {
  std::uint64_t inlineWords[24];
  std::unique_ptr<std::uint64_t[]> heapWords;
  std::uint64_t* words = inlineWords;
  UnrankedMemRef<void> inlineUnranked[4];
  std::vector<UnrankedMemRef<void>> heapUnranked;
  std::size_t numUnranked = 0;
  // Keep-alive for views, copies and destinations; boxed so that pointers to
  // them stay valid, and empty (no allocation) on the fast path.
  std::vector<std::unique_ptr<Buffer>> temps;
  std::vector<std::pair<const Buffer*, const Buffer*>> copyBacks;  // (user buffer, its copy)
  // Every buffer whose descriptor went in, by raw position (inline when few).
  const Buffer* inlinePassed[16];
  std::unique_ptr<const Buffer*[]> heapPassed;
  const Buffer** passed = inlinePassed;
  std::size_t numPassed = 0;

  // User-provided so that the inline arrays are not zeroed on every call.
  CallState() {}

  Buffer* keep(Buffer b) {
    temps.push_back(std::make_unique<Buffer>(std::move(b)));
    return temps.back().get();
  }
  void reservePassed(std::size_t n) {
    if (n > 16) {
      heapPassed = std::make_unique<const Buffer*[]>(n);
      passed = heapPassed.get();
    }
  }

  UnrankedMemRef<void>* unranked(std::size_t total) {
    if (total <= 4) return &inlineUnranked[numUnranked++];
    if (heapUnranked.empty()) heapUnranked.resize(total);
    return &heapUnranked[numUnranked++];
  }
};

// Which buffer a ranked parameter receives, after the oracle's decision.
Expected<const Buffer*> prepareBuffer(const RawParam& p, std::size_t r, const Buffer& b, CallState& st,
                                      const InvokeOptions& opt) {
  if ((b.elementType() != p.element && !elementTypesCompatible(p.element, b.elementType())) || b.rank() != p.rank)
    return mismatch(p, r, b.describe());
  auto sizes = b.sizes();
  for (std::int64_t i = 0; i < p.rank; ++i)
    if (p.staticDims[i] != kDynamic && p.staticDims[i] != sizes[i]) return mismatch(p, r, b.describe());
  bool asIs;
  if (p.identity) {
    // Row-major packed, offset 0 (strides of size-1 dims do not matter).
    asIs = b.offset() == 0;
    auto strides = b.strides();
    std::int64_t expect = 1;
    for (std::int64_t i = p.rank; asIs && i-- > 0;) {
      asIs = sizes[i] == 1 || strides[i] == expect;
      expect *= sizes[i];
    }
    if (!asIs && b.offset() == 0) asIs = b.isRowMajorContiguous();  // empty buffers
  } else {
    asIs = p.offset == kDynamic || p.offset == b.offset();
    auto strides = b.strides();
    for (std::int64_t i = 0; asIs && i < p.rank; ++i)
      asIs = p.strides[i] == kDynamic || sizes[i] == 1 || p.strides[i] == strides[i];
  }
  if (asIs) return &b;
  auto decision = bufferDescriptionOracle(p.type, BufferDescription::of(b));
  if (!decision) return mismatch(p, r, b.describe());
  const BufferDescription& t = decision->target;
  if (decision->usability == Usability::Rebase) {
    auto* aligned = static_cast<char*>(b.aligned()) +
                    (b.offset() - t.offset) * static_cast<std::int64_t>(b.elementSize());
    return st.keep(Buffer::fromParts(b.elementType(), b.allocated(), aligned, t.offset, t.shape, t.strides, b.owner()));
  }
  if (!opt.allowCopies)
    return mismatch(p, r, b.describe() + " with strides " + [&] {
      std::string s = "[";
      for (std::size_t i = 0; i < b.strides().size(); ++i) s += (i ? ", " : "") + std::to_string(b.strides()[i]);
      return s + "]";
    }(), " (" + decision->reason + "; a copy is needed and copies are disabled)");
  std::int64_t elems = 1;
  for (auto s : t.shape) elems *= s;
  MEMJIT_ASSIGN_OR_RETURN(Buffer storage, Buffer::allocate(b.elementType(), {t.offset + elems}));
  Buffer copy = Buffer::fromParts(b.elementType(), storage.allocated(), storage.aligned(), t.offset, t.shape,
                                  t.strides, storage.owner());
  MEMJIT_TRY(copy.copyFrom(b));
  Buffer* kept = st.keep(std::move(copy));
  st.copyBacks.emplace_back(&b, kept);
  return kept;
}

}  // namespace

namespace detail {

// Everything invoke does, with access to the plan.
struct Invocation {
  Invocation(const Plan& p, const InvokeOptions& o) : plan(p), opt(o) {}
  const Plan& plan;
  const InvokeOptions& opt;
  CallState st;
  // The value bound to each raw input (inline when few).
  const Value* inlineLeaves[16];
  std::unique_ptr<const Value*[]> heapLeaves;
  const Value** leaves = inlineLeaves;

  void reserveLeaves(std::size_t n) {
    if (n > 16) {
      heapLeaves = std::make_unique<const Value*[]>(n);
      leaves = heapLeaves.get();
    }
    for (std::size_t i = 0; i < n; ++i) leaves[i] = nullptr;
  }

  Error bind(const Node& n, const Value& v, const std::string& path) {
    switch (n.kind) {
      case Node::Kind::Leaf:
      case Node::Kind::HomList:
        leaves[static_cast<std::size_t>(n.raw)] = &v;
        return Error::success();
      case Node::Kind::Gap:
        if (!v.isNone())
          return Error(ErrorCode::TypeMismatch, path + ": expected None (an empty slot), received " + v.describe());
        return Error::success();
      case Node::Kind::List:
      case Node::Kind::Tuple: {
        std::size_t want = n.children.size();
        if (!n.positions.empty()) want = static_cast<std::size_t>(n.positions.back() + 1);
        if (!v.isSequence())
          return Error(ErrorCode::TypeMismatch, path + ": expected a sequence of " + std::to_string(want) +
                                                    " values, received " + v.describe());
        if (v.size() != want)
          return Error(ErrorCode::ArityMismatch, path + ": expected a sequence of " + std::to_string(want) +
                                                     " values, received " + v.describe());
        for (std::size_t i = 0; i < n.children.size(); ++i) {
          std::size_t pos = n.positions.empty() ? i : static_cast<std::size_t>(n.positions[i]);
          MEMJIT_TRY(bind(n.children[i], v[pos], path + "[" + std::to_string(pos) + "]"));
        }
        return Error::success();
      }
      case Node::Kind::Dict: {
        std::string keyList;
        for (std::size_t i = 0; i < n.keys.size(); ++i) keyList += (i ? ", " : "") + n.keys[i];
        if (!v.isDict())
          return Error(ErrorCode::TypeMismatch, path + ": expected a dict of " + std::to_string(n.keys.size()) +
                                                    " values {" + keyList + "}, received " + v.describe());
        if (v.size() != n.keys.size())
          return Error(ErrorCode::ArityMismatch, path + ": expected a dict of " + std::to_string(n.keys.size()) +
                                                     " values {" + keyList + "}, received " + v.describe());
        for (std::size_t i = 0; i < n.keys.size(); ++i) {
          const Value* x = v.find(n.keys[i]);
          if (!x)
            return Error(ErrorCode::NotFound, path + ": missing key '" + n.keys[i] + "' (received " + v.describe() + ")");
          MEMJIT_TRY(bind(n.children[i], *x, path + "['" + n.keys[i] + "']"));
        }
        return Error::success();
      }
    }
    return Error::success();
  }

  Error bindRoot(std::span<const Value> args, std::span<const std::pair<std::string, Value>> kwargs) {
    const std::size_t np = plan.params.size();
    reserveLeaves(plan.raw.size());
    if (args.size() > np)
      return Error(ErrorCode::ArityMismatch, "'" + plan.sig.name + "' takes " + std::to_string(np) +
                                                 " arguments, received " + std::to_string(args.size()) + " positional");
    std::vector<const Value*> bound(np, nullptr);
    for (std::size_t i = 0; i < args.size(); ++i) bound[i] = &args[i];
    for (const auto& [name, value] : kwargs) {
      std::size_t i = 0;
      while (i < np && plan.params[i].name != name) ++i;
      if (i == np || name.empty())
        return Error(ErrorCode::InvalidArgument, "'" + plan.sig.name + "' got an unexpected keyword argument '" + name + "'");
      if (bound[i])
        return Error(ErrorCode::InvalidArgument, "'" + plan.sig.name + "' got argument '" + name +
                                                     "' both positionally and by keyword");
      bound[i] = &value;
    }
    for (std::size_t i = 0; i < np; ++i)
      if (!bound[i]) {
        const std::string& nm = plan.params[i].name;
        return Error(ErrorCode::ArityMismatch, "'" + plan.sig.name + "' takes " + std::to_string(np) +
                                                   " arguments, received " + std::to_string(args.size() + kwargs.size()) +
                                                   " (missing " + (nm.empty() ? "argument " + std::to_string(i) : "'" + nm + "'") + ")");
      }
    for (std::size_t i = 0; i < np; ++i) {
      const Param& p = plan.params[i];
      MEMJIT_TRY(bind(p.node, *bound[i], p.name.empty() ? "argument " + std::to_string(i) : "argument '" + p.name + "'"));
    }
    return Error::success();
  }

  // Builds a 1-D buffer of the parameter's element type from a list of scalars.
  Expected<const Buffer*> listToBuffer(const RawParam& p, std::size_t r, const Value& v) {
    if (p.rank != 1) return mismatch(p, r, v.describe());
    MEMJIT_ASSIGN_OR_RETURN(Buffer b, Buffer::allocate(p.element, {static_cast<std::int64_t>(v.size())}));
    RawParam elem = p;
    elem.scalar = true;
    elem.expected = rawElementName(p.element);
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::uint64_t w;
      elem.path = p.path + "[" + std::to_string(i) + "]";
      MEMJIT_TRY(packScalar(elem, r, v[i], w));
      std::memcpy(static_cast<char*>(b.data()) + i * b.elementSize(), &w, b.elementSize());
    }
    return st.keep(std::move(b));
  }

  Error packInputs(std::size_t base, std::size_t numUnranked) {
    for (std::size_t r = 0; r < plan.raw.size(); ++r) {
      const RawParam& p = plan.raw[r];
      const Value& v = *leaves[r];
      std::uint64_t& word = st.words[base + r];
      if (p.scalar) {
        MEMJIT_TRY(packScalar(p, r, v, word));
        continue;
      }
      const Buffer* b = nullptr;
      if (v.isBuffer()) {
        b = &v.buffer();
      } else if (v.isString() && p.rank == 1 && storageSize(p.element) == 1 && !p.unranked) {
        // A String is a 1-D i8 memref over its bytes.
        auto* data = const_cast<char*>(v.string().data());
        b = st.keep(Buffer::fromParts(p.element, data, data, 0,
                                      std::array<std::int64_t, 1>{static_cast<std::int64_t>(v.string().size())},
                                      std::array<std::int64_t, 1>{1}));
      } else if (v.isSequence() && p.ranked) {
        MEMJIT_ASSIGN_OR_RETURN(b, listToBuffer(p, r, v));
      } else {
        return mismatch(p, r, v.describe());
      }
      // Checked or not, the callee would read through it.
      if (!b->aligned() && b->numElements() != 0)
        return Error(ErrorCode::InvalidArgument, p.path + " (raw #" + std::to_string(r) + "): " + b->describe() +
                                                     " has a null data pointer but " +
                                                     std::to_string(b->numElements()) + " elements");
      if (p.unranked) {
        if (!elementTypesCompatible(p.element, b->elementType())) return mismatch(p, r, b->describe());
        UnrankedMemRef<void>* u = st.unranked(numUnranked);
        u->rank = b->rank();
        u->descriptor = const_cast<void*>(b->descriptor());
        word = reinterpret_cast<std::uintptr_t>(u);
      } else {
        MEMJIT_ASSIGN_OR_RETURN(const Buffer* use, prepareBuffer(p, r, *b, st, opt));
        word = reinterpret_cast<std::uintptr_t>(use->descriptor());
        b = use;
      }
      st.passed[st.numPassed++] = b;
    }
    return Error::success();
  }
};

}  // namespace detail

namespace {

struct OwnerTable {
  std::vector<std::pair<const void*, std::shared_ptr<void>>> known;  // allocated pointer -> owner

  std::shared_ptr<void> ownerFor(void* allocated, bool& isNew) {
    isNew = false;
    if (detail::isUnownedAllocation(allocated)) return {};
    for (auto& [p, o] : known)
      if (p == allocated) return o;
    std::shared_ptr<void> o(allocated, [](void* q) { std::free(q); });
    known.emplace_back(allocated, o);
    isNew = true;
    return o;
  }
};

Value rawResult(const Type& t, const unsigned char* at, OwnerTable& owners) {
  if (const auto* e = std::get_if<ElementType>(&t)) return readScalar(*e, at);
  if (const auto* m = std::get_if<MemRefType>(&t)) {
    void* allocated;
    std::memcpy(&allocated, at, sizeof allocated);
    bool isNew;
    auto owner = owners.ownerFor(allocated, isNew);
    return Value(Buffer::fromDescriptor(m->element(), static_cast<std::int64_t>(m->rank()), at, std::move(owner)));
  }
  const auto& u = std::get<UnrankedMemRefType>(t);
  std::int64_t rank;
  void* desc;
  std::memcpy(&rank, at, 8);
  std::memcpy(&desc, at + 8, sizeof desc);
  if (!desc) return Value();
  void* allocated;
  std::memcpy(&allocated, desc, sizeof allocated);
  bool isNew;
  auto owner = owners.ownerFor(allocated, isNew);
  Buffer b = Buffer::fromDescriptor(u.element, rank, desc, std::move(owner));
  std::free(desc);  // the callee malloc'd a copy of the descriptor for us
  return Value(std::move(b));
}

Value buildResult(const Node& n, std::vector<Value>& raw) {
  switch (n.kind) {
    case Node::Kind::Leaf: return std::move(raw[static_cast<std::size_t>(n.raw)]);
    case Node::Kind::Gap: return Value();
    case Node::Kind::HomList: {
      Value& v = raw[static_cast<std::size_t>(n.raw)];
      if (!v.isBuffer() || v.buffer().rank() != 1) return std::move(v);
      const Buffer& b = v.buffer();
      std::vector<Value> items;
      for (std::int64_t i = 0; i < b.size(0); ++i) {
        std::int64_t idx[1] = {i};
        items.push_back(readScalar(b.elementType(), b.at(idx)));
      }
      return Value::list(std::move(items));
    }
    case Node::Kind::List:
    case Node::Kind::Tuple: {
      std::vector<Value> items;
      for (const auto& c : n.children) items.push_back(buildResult(c, raw));
      return n.kind == Node::Kind::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
    case Node::Kind::Dict: {
      std::vector<std::pair<std::string, Value>> entries;
      for (std::size_t i = 0; i < n.children.size(); ++i) entries.emplace_back(n.keys[i], buildResult(n.children[i], raw));
      return Value::dict(std::move(entries));
    }
  }
  return Value();
}

}  // namespace

Expected<Value> Function::invoke(std::span<const Value> args, std::span<const std::pair<std::string, Value>> kwargs,
                                 const InvokeOptions& options) const {
  if (!plan_) return Error(ErrorCode::InvalidArgument, "invoke: empty function handle");
  const Plan& plan = *plan_;
  const detail::CallShape& call = *plan.call;
  if (!call.unsupported().empty())
    return Error(ErrorCode::Unsupported, "invoke '" + plan.sig.name + "': " + call.unsupported());

  detail::Invocation inv(plan, options);
  CallState& st = inv.st;
  if (call.numWords() > 24) {
    st.heapWords = std::make_unique<std::uint64_t[]>(call.numWords());
    st.words = st.heapWords.get();
  }
  st.reservePassed(plan.raw.size() + plan.numDestinations);

  if (plan.flat && kwargs.empty() && args.size() == plan.raw.size()) {
    inv.reserveLeaves(args.size());
    for (std::size_t i = 0; i < args.size(); ++i) inv.leaves[i] = &args[i];
  } else {
    MEMJIT_TRY(inv.bindRoot(args, kwargs));
  }
  std::size_t numUnranked = plan.numUnranked;
  std::size_t base = call.results().viaPointer ? 1 : 0;
  MEMJIT_TRY(inv.packInputs(base, numUnranked));

  // Destinations (deferred result allocation, see result_allocator.h).
  std::size_t userCount = plan.raw.size();
  if (plan.numDestinations) {
    std::vector<Buffer> dests;
    if (plan.allocator) {
      const detail::CallShape& ac = *plan.allocatorCall;
      std::vector<std::uint64_t> aw(ac.numWords());
      std::size_t k = ac.results().viaPointer ? 1 : 0;
      for (std::size_t r = 0; r < userCount; ++r) {
        const RawParam& p = plan.raw[r];
        if (!p.ranked) continue;
        auto sizes = st.passed[r]->sizes();
        for (std::int64_t i = 0; i < p.rank; ++i)
          if (p.staticDims[i] == kDynamic) aw[k++] = static_cast<std::uint64_t>(sizes[i]);
      }
      std::vector<std::uint64_t> storage((ac.results().size + 7) / 8 + 1);
      if (ac.results().viaPointer) aw[0] = reinterpret_cast<std::uintptr_t>(storage.data());
      std::uint64_t ret = 0;
      ac.call(plan.allocator, aw.data(), &ret);
      OwnerTable fresh;
      auto* bytes = reinterpret_cast<const unsigned char*>(storage.data());
      for (std::size_t j = 0; j < plan.allocatorType.results.size(); ++j) {
        Value v = rawResult(plan.allocatorType.results[j], bytes + ac.results().offsets[j], fresh);
        dests.push_back(v.buffer());
      }
    } else {
      for (const auto& r : plan.sig.type.results)
        if (const auto* m = std::get_if<MemRefType>(&r)) {
          std::vector<std::int64_t> zeros(m->rank(), 0);
          dests.push_back(Buffer::fromParts(m->element(), nullptr, nullptr, 0, zeros, zeros));
        }
    }
    for (std::size_t j = 0; j < dests.size(); ++j) {
      Buffer* d = st.keep(std::move(dests[j]));
      st.words[base + userCount + j] = reinterpret_cast<std::uintptr_t>(d->descriptor());
      st.passed[st.numPassed++] = d;
    }
  }

  // The call.
  const auto& layout = call.results();
  alignas(16) unsigned char inlineResult[256];
  std::unique_ptr<std::uint64_t[]> heapResult;
  unsigned char* result = inlineResult;
  if (layout.size > sizeof inlineResult) {
    heapResult = std::make_unique<std::uint64_t[]>(layout.size / 8 + 1);
    result = reinterpret_cast<unsigned char*>(heapResult.get());
  }
  if (layout.viaPointer) st.words[0] = reinterpret_cast<std::uintptr_t>(result);
  std::uint64_t ret = 0;
  clearCheckFailure();  // checked mode: report only what this call fails (runtime/checks.h)
  call.call(plan.fn, st.words, &ret);

  for (const auto& [user, copy] : st.copyBacks) MEMJIT_TRY(user->copyFrom(*copy));
  // A checked function stopped at a failed check; its results are zeros.
  if (checkFailed()) return takeCheckFailure();

  const auto& results = plan.userType.results;
  if (results.empty()) return Value();
  std::vector<Value> raw;
  raw.reserve(results.size());
  if (!layout.viaPointer) {
    raw.push_back(readScalar(std::get<ElementType>(results[0]), &ret));
  } else {
    // Results may alias what went in: share those buffers' owners (or none).
    OwnerTable owners;
    for (std::size_t i = 0; i < st.numPassed; ++i)
      if (const Buffer* b = st.passed[i]; !detail::isUnownedAllocation(b->allocated()))
        owners.known.emplace_back(b->allocated(), b->owner());
    for (std::size_t i = 0; i < results.size(); ++i) raw.push_back(rawResult(results[i], result + layout.offsets[i], owners));
  }
  if (plan.resultsFromSip) {
    Value v = buildResult(plan.resultNodes[0], raw);
    if (plan.resultNodes[0].kind == Node::Kind::List) return Value::tuple(std::vector<Value>(v.items()));
    return v;
  }
  if (plan.resultNodes.empty()) {
    if (raw.size() == 1) return std::move(raw[0]);
    return Value::tuple(std::move(raw));
  }
  if (plan.resultNodes.size() == 1) return buildResult(plan.resultNodes[0], raw);
  std::vector<Value> items;
  for (const auto& n : plan.resultNodes) items.push_back(buildResult(n, raw));
  return Value::tuple(std::move(items));
}

}  // namespace memjit::runtime
