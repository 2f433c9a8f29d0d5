#include "memjit/signature/sip_signature.h"

#include <algorithm>
#include <utility>

namespace memjit::signature {

namespace {

Error parseError(std::size_t offset, std::string message) {
  return Error(ErrorCode::ParseError, std::move(message), offset);
}

bool keyLess(const SipKey& a, const SipKey& b) {
  // Same-kind keys only ever meet: integers ascending, strings bytewise.
  if (a.index() != b.index()) return a.index() < b.index();
  if (auto* ia = std::get_if<std::int64_t>(&a)) return *ia < std::get<std::int64_t>(b);
  return std::get<std::string>(a) < std::get<std::string>(b);  // char_traits compare is bytewise
}

std::string describeKey(const SipKey& k) {
  if (auto* i = std::get_if<std::int64_t>(&k)) return std::to_string(*i);
  return "\"" + std::get<std::string>(k) + "\"";
}

std::string describePath(const SipPath& path, std::size_t upTo) {
  std::string s = "[";
  for (std::size_t i = 0; i < upTo && i < path.size(); ++i) {
    if (i) s += ", ";
    s += describeKey(path[i]);
  }
  return s + "]";
}

void encodeInto(const SipNode& node, SignatureBuilder& out) {
  if (node.kind == SipNode::Kind::Leaf) {
    out.integer(node.rawIndex, '_');
    return;
  }
  SignatureBuilder inner;
  for (const SipEntry& e : node.children) {
    if (auto* i = std::get_if<std::int64_t>(&e.key))
      inner.integer(*i, 'k');
    else
      inner.span(std::get<std::string>(e.key), 'K');
    encodeInto(e.value, inner);
  }
  out.append(inner, node.kind == SipNode::Kind::Sequence ? 'S' : 'D');
}

// Parses one structured value at the parser's current component and advances
// past it. `depth` counts enclosing structs.
Expected<SipNode> parseValue(SignatureParser& p, std::size_t depth) {
  if (p.failed()) return p.error();
  if (p.atEnd()) return parseError(p.offset(), "expected a structured value ('_', 'S' or 'D'), found the end");
  if (p.kind() == Component::Integer) {
    if (p.tag() != '_')
      return parseError(p.offset(), std::string("expected a structured value ('_', 'S' or 'D'), found integer '") +
                                        p.tag() + "'");
    if (p.value() < 0)
      return parseError(p.offset(), "raw index " + std::to_string(p.value()) + " is negative");
    SipNode leaf = SipNode::leaf(p.value());
    p.next();
    return leaf;
  }
  if (p.tag() != 'S' && p.tag() != 'D')
    return parseError(p.offset(), std::string("expected a structured value ('_', 'S' or 'D'), found span '") +
                                      p.tag() + "'");
  if (depth >= kMaxNestingDepth)
    return parseError(p.offset(), "structure nests deeper than " + std::to_string(kMaxNestingDepth) + " levels");
  const bool sequence = p.tag() == 'S';
  SipNode node;
  node.kind = sequence ? SipNode::Kind::Sequence : SipNode::Kind::Dict;
  SignatureParser inner = p.nested();
  while (!inner.atEnd()) {
    if (inner.failed()) return inner.error();
    SipKey key;
    const std::size_t keyOffset = inner.offset();
    if (sequence) {
      if (inner.kind() != Component::Integer || inner.tag() != 'k')
        return parseError(keyOffset, "expected an integer key 'k' in sequence");
      if (inner.value() < 0)
        return parseError(keyOffset, "sequence key " + std::to_string(inner.value()) + " is negative");
      key = inner.value();
    } else {
      if (inner.kind() != Component::Span || inner.tag() != 'K')
        return parseError(keyOffset, "expected a string key 'K' in dict");
      key = std::string(inner.bytes());
    }
    if (!node.children.empty()) {
      const SipKey& prev = node.children.back().key;
      if (!keyLess(prev, key))
        return parseError(keyOffset, (keyLess(key, prev) ? "key " : "duplicate key ") + describeKey(key) +
                                         (keyLess(key, prev) ? " out of order, keys must be sorted ascending" : ""));
    }
    inner.next();
    MEMJIT_ASSIGN_OR_RETURN(SipNode child, parseValue(inner, depth + 1));
    node.children.push_back(SipEntry{std::move(key), std::move(child)});
  }
  p.next();
  return node;
}

void enumerateInto(const SipNode& node, SipPath& path, std::vector<SipLeaf>& out) {
  if (node.kind == SipNode::Kind::Leaf) {
    out.push_back(SipLeaf{path, node.rawIndex});
    return;
  }
  for (const SipEntry& e : node.children) {
    path.push_back(e.key);
    enumerateInto(e.value, path, out);
    path.pop_back();
  }
}

Error checkSide(const std::optional<SipNode>& side, std::size_t n, const char* what) {
  if (!side) return Error::success();
  std::vector<bool> seen(n, false);
  for (const SipLeaf& leaf : enumerate(*side)) {
    if (leaf.rawIndex < 0 || static_cast<std::uint64_t>(leaf.rawIndex) >= n)
      return Error(ErrorCode::ArityMismatch,
                   std::string("SIP ") + what + " leaf " + describePath(leaf.path, leaf.path.size()) +
                       " names raw index " + std::to_string(leaf.rawIndex) + " but the function has " +
                       std::to_string(n) + " raw " + what);
    if (seen[leaf.rawIndex])
      return Error(ErrorCode::ArityMismatch, std::string("SIP ") + what + " name raw index " +
                                                 std::to_string(leaf.rawIndex) + " twice");
    seen[leaf.rawIndex] = true;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (!seen[i])
      return Error(ErrorCode::ArityMismatch, std::string("SIP ") + what + " leave raw index " +
                                                 std::to_string(i) + " of " + std::to_string(n) + " unmapped");
  return Error::success();
}

Expected<std::optional<SipNode>> parseSide(SignatureParser& p, char tag, const char* what) {
  if (p.failed()) return p.error();
  if (p.kind() != Component::Span || p.tag() != tag)
    return parseError(p.offset(), std::string("expected the ") + what + " span '" + tag + "'");
  auto side = parseSipStructure(p.bytes(), p.contentOffset());
  if (side) p.next();
  return side;
}

}  // namespace

SipNode SipNode::leaf(std::int64_t rawIndex) {
  SipNode n;
  n.rawIndex = rawIndex;
  return n;
}

bool operator==(const SipNode& a, const SipNode& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == SipNode::Kind::Leaf) return a.rawIndex == b.rawIndex;
  return a.children == b.children;
}

Error SipMangler::set(std::int64_t rawIndex, const SipPath& path) {
  if (rawIndex < 0)
    return Error(ErrorCode::InvalidArgument, "raw index " + std::to_string(rawIndex) + " is negative");
  for (const SipKey& k : path)
    if (auto* i = std::get_if<std::int64_t>(&k); i && *i < 0)
      return Error(ErrorCode::InvalidArgument, "sequence key " + std::to_string(*i) + " in path " +
                                                   describePath(path, path.size()) + " is negative");
  // Validate the whole path first so a rejected assignment changes nothing.
  const SipNode* level = root_ ? &*root_ : nullptr;
  std::size_t depth = 0;
  for (; level && depth < path.size(); ++depth) {
    const SipKey& key = path[depth];
    if (level->kind == SipNode::Kind::Leaf)
      return Error(ErrorCode::InvalidArgument, "path " + describePath(path, path.size()) + " walks through the leaf at " +
                                                   describePath(path, depth) + " (raw index " +
                                                   std::to_string(level->rawIndex) + ")");
    const bool wantSequence = std::holds_alternative<std::int64_t>(key);
    if (wantSequence != (level->kind == SipNode::Kind::Sequence))
      return Error(ErrorCode::InvalidArgument,
                   "path " + describePath(path, path.size()) + " uses " + (wantSequence ? "an integer" : "a string") +
                       " key at " + describePath(path, depth) + ", which already has " +
                       (wantSequence ? "string" : "integer") + " keys");
    auto it = std::find_if(level->children.begin(), level->children.end(),
                           [&](const SipEntry& e) { return e.key == key; });
    level = it == level->children.end() ? nullptr : &it->value;
  }
  if (level && depth == path.size())
    return Error(ErrorCode::InvalidArgument,
                 "path " + describePath(path, path.size()) + " is already assigned" +
                     (level->kind == SipNode::Kind::Leaf ? " (raw index " + std::to_string(level->rawIndex) + ")"
                                                         : " as a structure"));
  // Create the missing levels and the leaf, keeping children sorted.
  if (path.empty()) {
    root_ = SipNode::leaf(rawIndex);
    return Error::success();
  }
  if (!root_) {
    root_ = SipNode{};
    root_->kind = std::holds_alternative<std::int64_t>(path[0]) ? SipNode::Kind::Sequence : SipNode::Kind::Dict;
  }
  SipNode* node = &*root_;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const SipKey& key = path[i];
    auto it = std::lower_bound(node->children.begin(), node->children.end(), key,
                               [](const SipEntry& e, const SipKey& k) { return keyLess(e.key, k); });
    if (it == node->children.end() || it->key != key) {
      SipNode child;
      if (i + 1 == path.size()) {
        child = SipNode::leaf(rawIndex);
      } else {
        child.kind = std::holds_alternative<std::int64_t>(path[i + 1]) ? SipNode::Kind::Sequence
                                                                       : SipNode::Kind::Dict;
      }
      it = node->children.insert(it, SipEntry{key, std::move(child)});
    }
    node = &it->value;
  }
  return Error::success();
}

std::string SipMangler::encode() const { return root_ ? signature::encode(*root_) : std::string(); }

std::string encode(const SipNode& node) {
  SignatureBuilder out;
  encodeInto(node, out);
  return out.encoded();
}

std::string mangle(const SipStructure& structure) {
  SignatureBuilder out;
  out.span(structure.inputs ? encode(*structure.inputs) : std::string(), 'I');
  out.span(structure.results ? encode(*structure.results) : std::string(), 'R');
  return out.encoded();
}

Expected<std::optional<SipNode>> parseSipStructure(std::string_view encoded, std::size_t baseOffset) {
  SignatureParser p(encoded, baseOffset);
  if (p.failed()) return p.error();
  if (p.atEnd()) return std::optional<SipNode>();
  MEMJIT_ASSIGN_OR_RETURN(SipNode node, parseValue(p, 0));
  if (p.failed()) return p.error();
  if (!p.atEnd()) return parseError(p.offset(), "unexpected data after the structured value");
  return std::optional<SipNode>(std::move(node));
}

Expected<SipStructure> parseSipSignature(std::string_view sip) {
  SignatureParser p(sip);
  SipStructure s;
  {
    MEMJIT_ASSIGN_OR_RETURN(s.inputs, parseSide(p, 'I', "inputs"));
  }
  {
    MEMJIT_ASSIGN_OR_RETURN(s.results, parseSide(p, 'R', "results"));
  }
  if (p.failed()) return p.error();
  if (!p.atEnd()) return parseError(p.offset(), "unexpected data after the results span");
  return s;
}

void visit(const SipNode& node, SipVisitor& visitor) {
  if (node.kind == SipNode::Kind::Leaf) {
    visitor.mapToRawIndex(node.rawIndex);
    return;
  }
  visitor.openStruct(node.kind == SipNode::Kind::Sequence ? SipStructKind::Sequence : SipStructKind::Dict);
  for (const SipEntry& e : node.children) {
    if (auto* i = std::get_if<std::int64_t>(&e.key))
      visitor.integerKey(*i);
    else
      visitor.stringKey(std::get<std::string>(e.key));
    visit(e.value, visitor);
  }
  visitor.closeStruct();
}

Error visitSipInputs(std::string_view sip, SipVisitor& visitor) {
  MEMJIT_ASSIGN_OR_RETURN(SipStructure s, parseSipSignature(sip));
  if (s.inputs) visit(*s.inputs, visitor);
  return Error::success();
}

Error visitSipResults(std::string_view sip, SipVisitor& visitor) {
  MEMJIT_ASSIGN_OR_RETURN(SipStructure s, parseSipSignature(sip));
  if (s.results) visit(*s.results, visitor);
  return Error::success();
}

void SipToStringVisitor::integerKey(std::int64_t key) { text_ += indent_ + std::to_string(key); }
void SipToStringVisitor::stringKey(std::string_view key) { (text_ += indent_) += key; }

void SipToStringVisitor::openStruct(SipStructKind kind) {
  indent_ += "  ";
  text_ += kind == SipStructKind::Dict ? ":{\n" : ":[\n";
  closers_.push_back(kind == SipStructKind::Dict ? '}' : ']');
}

void SipToStringVisitor::closeStruct() {
  if (indent_.size() >= 2) indent_.resize(indent_.size() - 2);
  text_ += indent_;
  text_.push_back(closers_.empty() ? '?' : closers_.back());
  if (!closers_.empty()) closers_.pop_back();
  text_ += ",\n";
}

void SipToStringVisitor::mapToRawIndex(std::int64_t rawIndex) {
  text_ += "=raw(" + std::to_string(rawIndex) + "),\n";
}

std::string toString(const std::optional<SipNode>& side) {
  if (!side) return {};
  SipToStringVisitor v;
  visit(*side, v);
  return v.text();
}

std::vector<SipLeaf> enumerate(const SipNode& node) {
  std::vector<SipLeaf> out;
  SipPath path;
  enumerateInto(node, path, out);
  return out;
}

SipStructure identitySipStructure(std::size_t numInputs, std::size_t numResults) {
  auto side = [](std::size_t n) -> std::optional<SipNode> {
    if (n == 0) return std::nullopt;
    SipNode seq;
    seq.kind = SipNode::Kind::Sequence;
    for (std::size_t i = 0; i < n; ++i)
      seq.children.push_back(SipEntry{static_cast<std::int64_t>(i), SipNode::leaf(static_cast<std::int64_t>(i))});
    return seq;
  };
  return SipStructure{side(numInputs), side(numResults)};
}

Error checkArity(const SipStructure& structure, std::size_t numRawInputs, std::size_t numRawResults) {
  MEMJIT_TRY(checkSide(structure.inputs, numRawInputs, "inputs"));
  return checkSide(structure.results, numRawResults, "results");
}

Expected<std::optional<std::string>> sipFromAttributes(const AttributeMap& attributes) {
  auto get = [&](std::string_view k) -> const std::string* {
    auto it = attributes.find(k);
    return it == attributes.end() ? nullptr : &it->second;
  };
  const std::string* version = nullptr;
  const char* versionName = nullptr;
  if (const std::string* sipv = get("sipv")) {
    version = sipv;
    versionName = "sipv";
  } else if (const std::string* abi = get("abi"); abi && *abi == "sip") {
    version = get("abiv");
    versionName = "abiv";
    if (!version) return Error(ErrorCode::NotFound, "attribute 'abi = sip' comes without 'abiv'");
  } else {
    return std::optional<std::string>();
  }
  if (*version != "1")
    return Error(ErrorCode::Unsupported, std::string("SIP ABI version ") + versionName + " = '" + *version +
                                             "' is not supported, expected 1");
  const std::string* sip = get("sip");
  if (!sip) return Error(ErrorCode::NotFound, "SIP ABI announced but attribute 'sip' is missing");
  return std::optional<std::string>(*sip);
}

}  // namespace memjit::signature
