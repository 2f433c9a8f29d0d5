// Fuzzes the SIP parser: parse, mangle, parse again, compare; the canonical
// text and the leaf enumeration survive the round trip, and rebuilding each
// side from its enumerated (path, raw index) pairs with SipMangler gives the
// same encoding (unless the side holds empty structs, which no path reaches).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "memjit/signature/sip_signature.h"

using namespace memjit::signature;

namespace {

bool hasEmptyStruct(const SipNode& n) {
  if (n.kind == SipNode::Kind::Leaf) return false;
  if (n.children.empty()) return true;
  for (const SipEntry& e : n.children)
    if (hasEmptyStruct(e.value)) return true;
  return false;
}

void checkSide(const std::optional<SipNode>& side) {
  if (!side || hasEmptyStruct(*side)) return;
  SipMangler m;
  for (const SipLeaf& leaf : enumerate(*side))
    if (m.set(leaf.rawIndex, leaf.path)) std::abort();
  if (!m.tree() || !(*m.tree() == *side) || m.encode() != encode(*side)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto sip = parseSipSignature(text);
  if (!sip) {
    if (!sip.error().offset() || *sip.error().offset() > size) std::abort();
    return 0;
  }
  std::string mangled = mangle(*sip);
  auto again = parseSipSignature(mangled);
  if (!again || !(*again == *sip) || mangle(*again) != mangled) std::abort();
  if (toString(again->inputs) != toString(sip->inputs) || toString(again->results) != toString(sip->results))
    std::abort();
  checkSide(sip->inputs);
  checkSide(sip->results);
  return 0;
}
