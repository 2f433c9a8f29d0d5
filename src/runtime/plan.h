// Internal: everything a Callable computes once from its signature so that a
// dynamic call does only the per-value work.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "call_shape.h"
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
  std::vector<std::int64_t> strides;     ///< declared strides; kDynamic where free
  bool identity = true;                  ///< identity layout: strides follow the actual shape
  std::int64_t offset = 0;               ///< declared offset, kDynamic when free
  std::string path;                      ///< "argument 'x'['mask']": where it sits in the structure
  std::string expected;                  ///< "Buffer<sint32[1x384]>"
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
};

/// Builds the parameters and result nodes from the SIP signature or the
/// reflection (whichever the signature carries; SIP first).
Error buildStructure(Plan& plan);

}  // namespace memjit::runtime::detail
