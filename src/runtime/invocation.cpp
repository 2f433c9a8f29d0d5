#include "invocation.h"

#include <array>
#include <cstring>

#include "memjit/runtime/checks.h"
#include "memjit/runtime/oracle.h"
#include "results.h"
#include "scalar_packing.h"

namespace memjit::runtime::detail {

Invocation::Invocation(const Plan& plan, const InvokeOptions& options) : plan_(plan), options_(options) {
  const CallShape& shape = *plan.call;
  base_ = shape.results().viaPointer ? 1 : 0;
  words_.reset(shape.numWords());
  leaves_.reset(plan.raw.size());
  inputBuffers_.reset(plan.raw.size());  // set for every memref before packDestinations reads it
  passed_.reset(plan.raw.size() + plan.numDestinations);
  unranked_.reset(plan.numUnranked);
  resultStorage_.reset(shape.results().size / 8 + 1);
  result_ = reinterpret_cast<unsigned char*>(resultStorage_.data());
}

Buffer* Invocation::keep(Buffer b) {
  temps_.push_back(std::make_unique<Buffer>(std::move(b)));
  return temps_.back().get();
}

Error Invocation::bind(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs) {
  if (plan_.flat && kwargs.empty() && args.size() == plan_.raw.size()) {
    for (std::size_t i = 0; i < args.size(); ++i) leaves_[i] = &args[i];
    return Error::success();
  }
  return bindRoot(args, kwargs);
}

Error Invocation::bindNode(const Node& n, const Variant& v, const std::string& path) {
  switch (n.kind) {
    case Node::Kind::Leaf:
    case Node::Kind::HomList:
      leaves_[static_cast<std::size_t>(n.raw)] = &v;
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
        MEMJIT_TRY(bindNode(n.children[i], v[pos], path + "[" + std::to_string(pos) + "]"));
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
        const Variant* x = v.find(n.keys[i]);
        if (!x)
          return Error(ErrorCode::NotFound, path + ": missing key '" + n.keys[i] + "' (received " + v.describe() + ")");
        MEMJIT_TRY(bindNode(n.children[i], *x, path + "['" + n.keys[i] + "']"));
      }
      return Error::success();
    }
  }
  return Error::success();
}

Error Invocation::bindRoot(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs) {
  const std::size_t np = plan_.params.size();
  if (args.size() > np)
    return Error(ErrorCode::ArityMismatch, "'" + plan_.sig.name + "' takes " + std::to_string(np) +
                                               " arguments, received " + std::to_string(args.size()) + " positional");
  leaves_.reset(plan_.raw.size(), /*clear=*/true);  // a structure binds every raw input, but not in order
  std::vector<const Variant*> bound(np, nullptr);
  for (std::size_t i = 0; i < args.size(); ++i) bound[i] = &args[i];
  for (const auto& [name, value] : kwargs) {
    std::size_t i = 0;
    while (i < np && plan_.params[i].name != name) ++i;
    if (i == np || name.empty())
      return Error(ErrorCode::InvalidArgument, "'" + plan_.sig.name + "' got an unexpected keyword argument '" + name + "'");
    if (bound[i])
      return Error(ErrorCode::InvalidArgument, "'" + plan_.sig.name + "' got argument '" + name +
                                                   "' both positionally and by keyword");
    bound[i] = &value;
  }
  for (std::size_t i = 0; i < np; ++i)
    if (!bound[i]) {
      const std::string& nm = plan_.params[i].name;
      return Error(ErrorCode::ArityMismatch, "'" + plan_.sig.name + "' takes " + std::to_string(np) +
                                                 " arguments, received " + std::to_string(args.size() + kwargs.size()) +
                                                 " (missing " + (nm.empty() ? "argument " + std::to_string(i) : "'" + nm + "'") + ")");
    }
  for (std::size_t i = 0; i < np; ++i) {
    const Param& p = plan_.params[i];
    MEMJIT_TRY(bindNode(p.node, *bound[i], p.name.empty() ? "argument " + std::to_string(i) : "argument '" + p.name + "'"));
  }
  return Error::success();
}

// Builds a 1-D buffer of the parameter's element type from a list of scalars.
Expected<const Buffer*> Invocation::listToBuffer(const RawParam& p, std::size_t r, const Variant& v) {
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
  return keep(std::move(b));
}

Error Invocation::packInputs() {
  for (std::size_t r = 0; r < plan_.raw.size(); ++r) {
    const RawParam& p = plan_.raw[r];
    const Variant& v = *leaves_[r];
    std::uint64_t& word = words_[base_ + r];
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
      b = keep(Buffer::fromParts(p.element, data, data, 0,
                                    std::array<std::int64_t, 1>{static_cast<std::int64_t>(v.string().size())},
                                    std::array<std::int64_t, 1>{1}));
    } else if (v.isSequence() && p.ranked) {
      MEMJIT_ASSIGN_OR_RETURN(b, listToBuffer(p, r, v));
    } else {
      return mismatch(p, r, v.describe());
    }
    // A default Buffer has no descriptor: its sizes cannot even be read.
    if (!b->valid())
      return Error(ErrorCode::InvalidArgument,
                   p.path + " (raw #" + std::to_string(r) + "): an empty Buffer (default-constructed, no descriptor)");
    // Checked or not, the callee would read through it.
    if (!b->aligned() && b->numElements() != 0)
      return Error(ErrorCode::InvalidArgument, p.path + " (raw #" + std::to_string(r) + "): " + b->describe() +
                                                   " has a null data pointer but " +
                                                   std::to_string(b->numElements()) + " elements");
    if (p.unranked) {
      if (!elementTypesCompatible(p.element, b->elementType())) return mismatch(p, r, b->describe());
      UnrankedMemRef<void>* u = &unranked_[numUnranked_++];
      u->rank = b->rank();
      u->descriptor = const_cast<void*>(b->descriptor());
      word = reinterpret_cast<std::uintptr_t>(u);
    } else {
      MEMJIT_ASSIGN_OR_RETURN(const Buffer* use, prepareBuffer(p, r, *b));
      word = reinterpret_cast<std::uintptr_t>(use->descriptor());
      b = use;
    }
    inputBuffers_[r] = b;
    pass(b);
  }
  return Error::success();
}

// Which buffer a ranked parameter receives, after the oracle's decision.
Expected<const Buffer*> Invocation::prepareBuffer(const RawParam& p, std::size_t r, const Buffer& b) {
  if (!p.matches(b)) return mismatch(p, r, b.describe());
  if (p.takesAsIs(b)) return &b;
  auto decision = bufferDescriptionOracle(p.type, BufferDescription::of(b));
  if (!decision) return mismatch(p, r, b.describe());
  const BufferDescription& t = decision->target;
  if (decision->usability == Usability::Rebase) {
    auto* aligned = static_cast<char*>(b.aligned()) +
                    (b.offset() - t.offset) * static_cast<std::int64_t>(b.elementSize());
    return keep(Buffer::fromParts(b.elementType(), b.allocated(), aligned, t.offset, t.shape, t.strides, b.owner()));
  }
  if (!options_.allowCopies)
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
  Buffer* kept = keep(std::move(copy));
  copyBacks_.emplace_back(&b, kept);
  return kept;
}

Error Invocation::packDestinations() {
  if (!plan_.numDestinations) return Error::success();
  const std::size_t userCount = plan_.raw.size();
  std::vector<Buffer> dests;
  if (plan_.allocator) {
    // The allocator takes the dynamic sizes of the ranked inputs, in order.
    const CallShape& ac = *plan_.allocatorCall;
    std::vector<std::uint64_t> aw(ac.numWords());
    std::size_t k = ac.results().viaPointer ? 1 : 0;
    for (std::size_t r = 0; r < userCount; ++r) {
      const RawParam& p = plan_.raw[r];
      if (!p.ranked) continue;
      auto sizes = inputBuffers_[r]->sizes();
      for (std::int64_t i = 0; i < p.rank; ++i)
        if (p.staticDims[i] == kDynamic) aw[k++] = static_cast<std::uint64_t>(sizes[i]);
    }
    std::vector<std::uint64_t> storage((ac.results().size + 7) / 8 + 1);
    if (ac.results().viaPointer) aw[0] = reinterpret_cast<std::uintptr_t>(storage.data());
    std::uint64_t ret = 0;
    ac.call(plan_.allocator, aw.data(), &ret);
    OwnerTable fresh;
    auto* bytes = reinterpret_cast<const unsigned char*>(storage.data());
    for (std::size_t j = 0; j < plan_.allocatorType.results.size(); ++j) {
      Variant v = rawResult(plan_.allocatorType.results[j], bytes + ac.results().offsets[j], fresh);
      dests.push_back(v.buffer());
    }
  } else {
    // No allocator: empty descriptors the callee fills in.
    for (const auto& r : plan_.sig.type.results)
      if (const auto* m = std::get_if<MemRefType>(&r)) {
        std::vector<std::int64_t> zeros(m->rank(), 0);
        dests.push_back(Buffer::fromParts(m->element(), nullptr, nullptr, 0, zeros, zeros));
      }
  }
  for (std::size_t j = 0; j < dests.size(); ++j) {
    Buffer* d = keep(std::move(dests[j]));
    words_[base_ + userCount + j] = reinterpret_cast<std::uintptr_t>(d->descriptor());
    pass(d);
  }
  return Error::success();
}

void Invocation::call() {
  if (plan_.call->results().viaPointer) words_[0] = reinterpret_cast<std::uintptr_t>(result_);
  ret_ = 0;
  clearCheckFailure();  // checked mode: report only what this call fails
  plan_.call->call(plan_.fn, words_.data(), &ret_);
}

Error Invocation::copyBack() {
  for (const auto& [user, copy] : copyBacks_) MEMJIT_TRY(user->copyFrom(*copy));
  return Error::success();
}

}  // namespace memjit::runtime::detail
