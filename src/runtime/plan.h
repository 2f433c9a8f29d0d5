// Internal: everything a Callable computes once from its signature so that a
// dynamic call does only the per-value work.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "call_shape.h"
#include "memjit/runtime/buffer.h"
#include "memjit/signature/function_signature.h"
#include "memjit/types.h"

namespace memjit::runtime::detail {

/// A node of the argument or result structure (from SIP or V1 reflection).
struct Node {
  enum class Kind : std::uint8_t {
    Leaf,      ///< one raw value
    Gap,       ///< a null slot: takes None, passes nothing
    HomList,   ///< py_homogeneous_list: a 1-D memref built from a list of scalars
    List,      ///< a sequence (slist; SIP sequence); results come back as lists
    Tuple,     ///< stuple; results come back as tuples
    Dict,      ///< sdict / SIP dict: children keyed by `keys`
  };
  Kind kind = Kind::Leaf;
  std::int64_t raw = -1;              ///< Leaf, HomList
  std::vector<Node> children;
  std::vector<std::string> keys;      ///< Dict
  std::vector<std::int64_t> positions;///< List/Tuple from SIP: the integer keys (empty = 0..n-1)
};

/// A root parameter: positional, and callable by keyword when named.
struct Param {
  std::string name;
  Node node;
};

/// What a ranked memref parameter requires, unpacked for the quick check.
struct RawParam {
  Type type;
  bool scalar = false, ranked = false, unranked = false;
  ElementType element = ElementType::F32;
  std::int64_t rank = 0;
  std::vector<std::int64_t> staticDims;  ///< kDynamic where dynamic
  bool anyStaticDim = false;             ///< some entry of staticDims is not kDynamic
  std::vector<std::int64_t> strides;     ///< declared strides; kDynamic where free
  bool identity = true;                  ///< identity layout: strides follow the actual shape
  std::int64_t offset = 0;               ///< declared offset, kDynamic when free
  std::string path;                      ///< "argument 'x'['mask']": where it sits in the structure
  std::string expected;                  ///< "Buffer<sint32[1x384]>"

  /// A ranked parameter's element type, rank and static sizes, in `b`.
  bool matches(const Buffer& b) const noexcept {
    if ((b.elementType() != element && !elementTypesCompatible(element, b.elementType())) || b.rank() != rank)
      return false;
    if (!anyStaticDim) return true;
    auto sizes = b.sizes();
    for (std::int64_t i = 0; i < rank; ++i)
      if (staticDims[i] != kDynamic && staticDims[i] != sizes[i]) return false;
    return true;
  }

  /// Whether a matching `b` has the declared layout, so that its descriptor
  /// goes in as it is (else the oracle decides: a rebased view or a copy).
  bool takesAsIs(const Buffer& b) const noexcept {
    auto sizes = b.sizes();
    auto given = b.strides();
    if (identity) {
      // Row-major packed, offset 0 (strides of size-1 dims do not matter).
      if (b.offset() != 0) return false;
      std::int64_t expect = 1;
      for (std::int64_t i = rank; i-- > 0;) {
        if (sizes[i] != 1 && given[i] != expect) return b.isRowMajorContiguous();  // empty buffers
        expect *= sizes[i];
      }
      return true;
    }
    if (offset != kDynamic && offset != b.offset()) return false;
    for (std::int64_t i = 0; i < rank; ++i)
      if (strides[i] != kDynamic && sizes[i] != 1 && strides[i] != given[i]) return false;
    return true;
  }
};

struct Plan {
  void* fn = nullptr;
  signature::FunctionSignature sig;
  FunctionType userType;                 ///< inputs without destinations
  std::size_t numDestinations = 0;
  std::unique_ptr<CallShape> call;
  std::vector<RawParam> raw;             ///< per user raw input
  std::size_t numUnranked = 0;           ///< unranked among them
  std::vector<Param> params;             ///< root parameters
  bool flat = true;                      ///< params are leaves 0..n-1, unnamed
  std::vector<Node> resultNodes;         ///< V1: one per record; SIP: the root
  bool resultsFromSip = false;
  bool defaultResults = true;            ///< no structure: one unwrapped, several a tuple
  void* allocator = nullptr;
  std::unique_ptr<CallShape> allocatorCall;
  FunctionType allocatorType;
  /// Inputs scalars and ranked memrefs bound by position, no destinations,
  /// no result block: a call whose buffers fit as they are is only checks
  /// and parameter words (quick_call.h).
  bool quick = false;
};

/// Builds the parameters and result nodes from the SIP signature or the
/// reflection (whichever the signature carries; SIP first).
Error buildStructure(Plan& plan);

}  // namespace memjit::runtime::detail
