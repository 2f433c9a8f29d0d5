// The Structured Index Path ABI (`sipv = 1, sip = ...`, also announced as
// `abi = sip, abiv = 1`): maps the flat raw inputs and results onto nested
// sequences (integer keys) and dicts (string keys), like Python's
// `(x, {"bar": y, "foo": z})`.
//
//   signature        ::= 'I' span(structured-value?) 'R' span(structured-value?)
//   structured-value ::= '_' raw-index
//                      | 'S' span(('k' integer structured-value)*)
//                      | 'D' span(('K' span(bytes) structured-value)*)
//
// An empty I or R span means no structure was declared for that side. The
// index path of a leaf is the list of keys walked from the root to reach it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "memjit/error.h"
#include "memjit/signature/mangling.h"

namespace memjit::signature {

/// A key on an index path: an integer (sequence position) or a string (dict key).
using SipKey = std::variant<std::int64_t, std::string>;
/// The keys from the root to a leaf; empty for a root leaf.
using SipPath = std::vector<SipKey>;

struct SipEntry;

/// One node of a SIP structure tree.
struct SipNode {
  enum class Kind : std::uint8_t { Leaf, Sequence, Dict };
  Kind kind = Kind::Leaf;
  /// Leaf: the raw argument or result index it names (>= 0).
  std::int64_t rawIndex = 0;
  /// Sequence: integer keys, ascending. Dict: string keys, bytewise ascending.
  std::vector<SipEntry> children;

  static SipNode leaf(std::int64_t rawIndex);
  friend bool operator==(const SipNode&, const SipNode&);
};

/// A keyed child of a Sequence or Dict node.
struct SipEntry {
  SipKey key;
  SipNode value;
  friend bool operator==(const SipEntry&, const SipEntry&) = default;
};

/// The structures of one function: nullopt where none was declared.
struct SipStructure {
  std::optional<SipNode> inputs;
  std::optional<SipNode> results;
  friend bool operator==(const SipStructure&, const SipStructure&) = default;
};

/// One leaf with its path, as enumerate() returns them.
struct SipLeaf {
  SipPath path;
  std::int64_t rawIndex = 0;
  friend bool operator==(const SipLeaf&, const SipLeaf&) = default;
};

/// Builds one side's structure from (raw index, index path) assignments with
/// the reference mangler's rules: a negative raw index or sequence key is
/// rejected, one level may not mix integer and string keys, a leaf may not be
/// reassigned nor walked through, and a struct node may not become a leaf.
/// A rejected assignment leaves the tree unchanged.
class SipMangler {
 public:
  /// Assigns `rawIndex` to the leaf at `path` (InvalidArgument on a rule violation).
  [[nodiscard]] Error set(std::int64_t rawIndex, const SipPath& path);
  /// The tree so far, nullopt when nothing was assigned.
  const std::optional<SipNode>& tree() const noexcept { return root_; }
  /// The structured-value encoding, keys sorted; "" when nothing was assigned.
  std::string encode() const;

 private:
  std::optional<SipNode> root_;
};

/// `I<span>R<span>` for two sides (nullopt sides give an empty span).
std::string mangle(const SipStructure& structure);
/// The structured-value encoding of one tree (keys emitted sorted).
std::string encode(const SipNode& node);
/// Parses a whole SIP signature. ParseError with the byte offset for
/// malformed spans, a wrong tag, a key of the wrong kind for its struct, a
/// duplicate key, a negative raw index or sequence key, nesting deeper than
/// kMaxNestingDepth, or trailing data.
Expected<SipStructure> parseSipSignature(std::string_view sip);
/// Parses one structured value (an I or R span's content); nullopt when empty.
Expected<std::optional<SipNode>> parseSipStructure(std::string_view encoded, std::size_t baseOffset = 0);

/// What a struct node is, for SipVisitor::openStruct.
enum class SipStructKind : std::uint8_t { Sequence, Dict };

/// Receives a structure in traversal order (keys sorted). For each node: the
/// key that leads to it (none for the root), then either mapToRawIndex or
/// openStruct ... children ... closeStruct.
class SipVisitor {
 public:
  virtual ~SipVisitor() = default;
  virtual void integerKey(std::int64_t key) = 0;
  virtual void stringKey(std::string_view key) = 0;
  virtual void openStruct(SipStructKind kind) = 0;
  virtual void closeStruct() = 0;
  virtual void mapToRawIndex(std::int64_t rawIndex) = 0;
};

/// Drives a visitor over a tree.
void visit(const SipNode& node, SipVisitor& visitor);
/// Parses `sip` completely, then visits its inputs (a visitor never sees a
/// partial walk of malformed input). Nothing is visited for an empty side.
[[nodiscard]] Error visitSipInputs(std::string_view sip, SipVisitor& visitor);
[[nodiscard]] Error visitSipResults(std::string_view sip, SipVisitor& visitor);

/// The reference's canonical ToString visitor: `:[` / `:{` open a struct
/// (indent two spaces more), keys are printed after the indent, leaves are
/// `=raw(N),` and closes `]` / `}` followed by `,`; every line ends in '\n'.
class SipToStringVisitor : public SipVisitor {
 public:
  void integerKey(std::int64_t key) override;
  void stringKey(std::string_view key) override;
  void openStruct(SipStructKind kind) override;
  void closeStruct() override;
  void mapToRawIndex(std::int64_t rawIndex) override;
  const std::string& text() const noexcept { return text_; }

 private:
  std::string text_;
  std::string indent_;
  std::string closers_;
};

/// The canonical text of one side ("" for nullopt).
std::string toString(const std::optional<SipNode>& side);

/// Every (index path, raw index), in traversal order.
std::vector<SipLeaf> enumerate(const SipNode& node);

/// The identity structure: inputs and results each a sequence by position
/// (raw i at path [i]); a side with no values has no structure.
SipStructure identitySipStructure(std::size_t numInputs, std::size_t numResults);

/// Checks that each side's leaves name every raw index 0..n-1 exactly once
/// (a side without a structure is fine). ArityMismatch otherwise.
[[nodiscard]] Error checkArity(const SipStructure& structure, std::size_t numRawInputs,
                               std::size_t numRawResults);

/// Finds the SIP signature in an attribute set: `sipv = 1` + `sip`, or
/// `abi = sip` + `abiv = 1` + `sip`. nullopt when neither announces SIP;
/// Unsupported for another version; NotFound when `sip` itself is missing.
/// The signature is returned unparsed.
Expected<std::optional<std::string>> sipFromAttributes(const AttributeMap& attributes);

}  // namespace memjit::signature
