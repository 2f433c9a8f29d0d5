// Maps the SIP structure or the V1 reflection records onto root parameters
// and result nodes, and names each raw input's place for diagnostics.
#include <string>

#include "memjit/signature/reflection.h"
#include "memjit/signature/sip_signature.h"
#include "plan.h"

namespace memjit::runtime::detail {
namespace {

using signature::RecordKind;
using signature::TypeRecord;

Node fromRecord(const TypeRecord& r, std::int64_t& next) {
  Node n;
  switch (r.kind) {
    case RecordKind::Primitive:
    case RecordKind::Unknown:
    case RecordKind::NDArray:
    case RecordKind::Scalar:
      n.kind = Node::Kind::Leaf;
      n.raw = next++;
      return n;
    case RecordKind::Null:
      n.kind = Node::Kind::Gap;
      return n;
    case RecordKind::PyHomogeneousList:
      n.kind = Node::Kind::HomList;
      n.raw = next++;
      return n;
    case RecordKind::Named:
    case RecordKind::Dict:
    case RecordKind::List:
      return fromRecord(r.slots.at(0), next);
    case RecordKind::SList:
    case RecordKind::STuple:
      n.kind = r.kind == RecordKind::SList ? Node::Kind::List : Node::Kind::Tuple;
      for (const auto& s : r.slots) n.children.push_back(fromRecord(s, next));
      return n;
    case RecordKind::SDict:
      n.kind = Node::Kind::Dict;
      n.keys = r.keys;
      for (const auto& s : r.slots) n.children.push_back(fromRecord(s, next));
      return n;
  }
  return n;
}

Node fromSip(const signature::SipNode& s) {
  Node n;
  switch (s.kind) {
    case signature::SipNode::Kind::Leaf:
      n.kind = Node::Kind::Leaf;
      n.raw = s.rawIndex;
      return n;
    case signature::SipNode::Kind::Sequence:
      n.kind = Node::Kind::List;
      for (const auto& e : s.children) {
        n.positions.push_back(std::get<std::int64_t>(e.key));
        n.children.push_back(fromSip(e.value));
      }
      return n;
    case signature::SipNode::Kind::Dict:
      n.kind = Node::Kind::Dict;
      for (const auto& e : s.children) {
        n.keys.push_back(std::get<std::string>(e.key));
        n.children.push_back(fromSip(e.value));
      }
      return n;
  }
  return n;
}

void assignPaths(const Node& n, const std::string& path, std::vector<RawParam>& raw) {
  switch (n.kind) {
    case Node::Kind::Leaf:
    case Node::Kind::HomList:
      if (n.raw >= 0 && static_cast<std::size_t>(n.raw) < raw.size()) raw[static_cast<std::size_t>(n.raw)].path = path;
      return;
    case Node::Kind::Gap: return;
    case Node::Kind::List:
    case Node::Kind::Tuple:
      for (std::size_t i = 0; i < n.children.size(); ++i) {
        std::int64_t pos = n.positions.empty() ? static_cast<std::int64_t>(i) : n.positions[i];
        assignPaths(n.children[i], path + "[" + std::to_string(pos) + "]", raw);
      }
      return;
    case Node::Kind::Dict:
      for (std::size_t i = 0; i < n.children.size(); ++i)
        assignPaths(n.children[i], path + "['" + n.keys[i] + "']", raw);
      return;
  }
}

}  // namespace

Error buildStructure(Plan& plan) {
  const std::size_t n = plan.userType.inputs.size();
  const std::size_t m = plan.userType.results.size();
  const auto& sig = plan.sig;
  plan.params.clear();
  plan.resultNodes.clear();

  bool haveInputs = false;
  if (sig.sip && !sig.sip->empty()) {
    MEMJIT_ASSIGN_OR_RETURN(signature::SipStructure s, signature::parseSipSignature(*sig.sip));
    if (Error e = signature::checkArity(s, n, m)) return e.withContext("SIP signature of '" + sig.name + "'");
    if (s.inputs) {
      haveInputs = true;
      Node root = fromSip(*s.inputs);
      if (root.kind == Node::Kind::List) {
        for (auto& c : root.children) plan.params.push_back(Param{"", std::move(c)});
      } else if (root.kind == Node::Kind::Dict) {
        for (std::size_t i = 0; i < root.children.size(); ++i)
          plan.params.push_back(Param{root.keys[i], std::move(root.children[i])});
      } else {
        plan.params.push_back(Param{"", std::move(root)});
      }
    }
    if (s.results) {
      plan.resultNodes.push_back(fromSip(*s.results));
      plan.resultsFromSip = true;
      plan.defaultResults = false;
    }
  } else if (!sig.reflection.empty()) {
    auto parsed = signature::parseReflection(sig.reflection);
    if (!parsed) return parsed.error().withContext("reflection of '" + sig.name + "'");
    signature::Reflection refl = std::move(*parsed);
    // With an allocator the records may list the destinations too: drop them.
    std::size_t total = 0;
    for (const auto& r : refl.args) total += signature::rawArity(r);
    while (plan.numDestinations && total > n && !refl.args.empty()) {
      total -= signature::rawArity(refl.args.back());
      refl.args.pop_back();
    }
    if (Error e = signature::checkArity(refl, n, m)) return e.withContext("reflection of '" + sig.name + "'");
    haveInputs = true;
    std::int64_t next = 0;
    for (const auto& r : refl.args) {
      std::string name = r.kind == RecordKind::Named ? r.name : "";
      plan.params.push_back(Param{name, fromRecord(r, next)});
    }
    next = 0;
    for (const auto& r : refl.results) plan.resultNodes.push_back(fromRecord(r, next));
    plan.defaultResults = false;
  }
  if (!haveInputs)
    for (std::size_t i = 0; i < n; ++i) {
      Node leaf;
      leaf.raw = static_cast<std::int64_t>(i);
      plan.params.push_back(Param{"", leaf});
    }

  plan.flat = true;
  for (std::size_t i = 0; i < plan.params.size(); ++i) {
    const Param& p = plan.params[i];
    if (!p.name.empty() || p.node.kind != Node::Kind::Leaf || p.node.raw != static_cast<std::int64_t>(i)) plan.flat = false;
    std::string label = p.name.empty() ? "argument " + std::to_string(i) : "argument '" + p.name + "'";
    assignPaths(p.node, label, plan.raw);
  }
  if (plan.params.size() != n) plan.flat = false;
  return Error::success();
}

}  // namespace memjit::runtime::detail
