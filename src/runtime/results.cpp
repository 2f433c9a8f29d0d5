#include "results.h"

#include <cstdlib>
#include <cstring>

#include "memjit/runtime/result_allocator.h"
#include "memjit/runtime/typed_callable.h"
#include "scalar_packing.h"

namespace memjit::runtime::detail {
namespace {

Variant buildResult(const Node& n, std::vector<Variant>& raw) {
  switch (n.kind) {
    case Node::Kind::Leaf: return std::move(raw[static_cast<std::size_t>(n.raw)]);
    case Node::Kind::Gap: return Variant();
    case Node::Kind::HomList: {
      Variant& v = raw[static_cast<std::size_t>(n.raw)];
      if (!v.isBuffer() || v.buffer().rank() != 1) return std::move(v);
      const Buffer& b = v.buffer();
      std::vector<Variant> items;
      for (std::int64_t i = 0; i < b.size(0); ++i) {
        std::int64_t idx[1] = {i};
        items.push_back(readScalar(b.elementType(), b.at(idx)));
      }
      return Variant::list(std::move(items));
    }
    case Node::Kind::List:
    case Node::Kind::Tuple: {
      std::vector<Variant> items;
      for (const auto& c : n.children) items.push_back(buildResult(c, raw));
      return n.kind == Node::Kind::List ? Variant::list(std::move(items)) : Variant::tuple(std::move(items));
    }
    case Node::Kind::Dict: {
      std::vector<std::pair<std::string, Variant>> entries;
      for (std::size_t i = 0; i < n.children.size(); ++i) entries.emplace_back(n.keys[i], buildResult(n.children[i], raw));
      return Variant::dict(std::move(entries));
    }
  }
  return Variant();
}

}  // namespace

std::shared_ptr<void> OwnerTable::ownerFor(void* allocated) {
  if (isUnownedAllocation(allocated)) return {};
  for (auto& [p, o] : known)
    if (p == allocated) return o;
  std::shared_ptr<void> o(allocated, [](void* q) { std::free(q); });
  known.emplace_back(allocated, o);
  return o;
}

Variant rawResult(const Type& t, const unsigned char* at, OwnerTable& owners) {
  if (const auto* e = std::get_if<ElementType>(&t)) return readScalar(*e, at);
  if (const auto* m = std::get_if<MemRefType>(&t)) {
    void* allocated;
    std::memcpy(&allocated, at, sizeof allocated);
    auto owner = owners.ownerFor(allocated);
    return Variant(Buffer::fromDescriptor(m->element(), static_cast<std::int64_t>(m->rank()), at, std::move(owner)));
  }
  const auto& u = std::get<UnrankedMemRefType>(t);
  std::int64_t rank;
  void* desc;
  std::memcpy(&rank, at, 8);
  std::memcpy(&desc, at + 8, sizeof desc);
  if (!desc) return Variant();
  void* allocated;
  std::memcpy(&allocated, desc, sizeof allocated);
  auto owner = owners.ownerFor(allocated);
  Buffer b = Buffer::fromDescriptor(u.element, rank, desc, std::move(owner));
  std::free(desc);  // the callee malloc'd a copy of the descriptor for us
  return Variant(std::move(b));
}

Variant unpackResults(const Plan& plan, const Returned& returned) {
  const auto& layout = plan.call->results();
  const auto& results = plan.userType.results;
  if (results.empty()) return Variant();
  std::vector<Variant> raw;
  raw.reserve(results.size());
  if (!layout.viaPointer) {
    raw.push_back(readScalar(std::get<ElementType>(results[0]), &returned.word));
  } else {
    // Results may alias what went in: share those buffers' owners (or none).
    OwnerTable owners;
    for (const Buffer* b : returned.passed)
      if (!isUnownedAllocation(b->allocated())) owners.known.emplace_back(b->allocated(), b->owner());
    for (std::size_t i = 0; i < results.size(); ++i)
      raw.push_back(rawResult(results[i], returned.block + layout.offsets[i], owners));
  }
  if (plan.resultsFromSip) {
    Variant v = buildResult(plan.resultNodes[0], raw);
    if (plan.resultNodes[0].kind == Node::Kind::List) return Variant::tuple(std::vector<Variant>(v.items()));
    return v;
  }
  if (plan.resultNodes.empty()) {
    if (raw.size() == 1) return std::move(raw[0]);
    return Variant::tuple(std::move(raw));
  }
  if (plan.resultNodes.size() == 1) return buildResult(plan.resultNodes[0], raw);
  std::vector<Variant> items;
  for (const auto& n : plan.resultNodes) items.push_back(buildResult(n, raw));
  return Variant::tuple(std::move(items));
}

}  // namespace memjit::runtime::detail
