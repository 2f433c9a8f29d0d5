// V1 ABI reflection: the `iree.abi` JSON that types each argument and result
// more richly than the raw signature, e.g.
//   {"a":[["ndarray","f32",2,2,3],["named","n","i32"]],"r":["i32"],"v":1}
//
// Raw arity (how many consecutive raw arguments one record consumes), which is
// how the dynamic invoker maps structured values onto raw arguments:
//   primitive, "unknown", ndarray, py_homogeneous_list   1
//   null                                                 0 (a gap: nothing is passed)
//   named, dict, list, scalar                            that of the wrapped record
//   slist, stuple, sdict                                 the sum over their slots, in order
// so ["sdict",["a","i32"],["b","i32"]] takes two raw arguments, a then b.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::signature {

/// Every record kind of the V1 reflection, plus `dict`, `list` and `scalar`
/// wrappers seen in real producers' output.
enum class RecordKind : std::uint8_t {
  Primitive,          ///< "i32", "f16", "bf16", ...: `name`
  Null,               ///< JSON null
  Unknown,            ///< "unknown"
  Named,              ///< ["named", name, slot]: `name`, slots[0]
  NDArray,            ///< ["ndarray", element, rank|null, dim|null...]: slots[0], rank, dims
  SList,              ///< ["slist", slot...]
  STuple,             ///< ["stuple", slot...]
  SDict,              ///< ["sdict", [key, slot]...]: keys parallel to slots
  PyHomogeneousList,  ///< ["py_homogeneous_list", element]: slots[0]
  Dict,               ///< ["dict", sdict]: slots[0] is an SDict
  List,               ///< ["list", slist|stuple]: slots[0]
  Scalar,             ///< ["scalar", primitive]: slots[0]
};

/// The JSON spelling of a kind ("ndarray", "py_homogeneous_list", ...;
/// "null" and "unknown" and "primitive" for the non-array kinds).
std::string_view recordKindName(RecordKind kind) noexcept;

/// One type record.
struct TypeRecord {
  RecordKind kind = RecordKind::Unknown;
  /// Primitive: the type name. Named: the argument name.
  std::string name;
  /// The nested records (see RecordKind for which kinds have how many).
  std::vector<TypeRecord> slots;
  /// SDict: each slot's key, parallel to `slots`.
  std::vector<std::string> keys;
  /// NDArray: the rank, nullopt when unknown (then `dims` is empty).
  std::optional<std::int64_t> rank;
  /// NDArray: each dim, nullopt when dynamic.
  std::vector<std::optional<std::int64_t>> dims;

  static TypeRecord primitive(std::string name);
  static TypeRecord null();
  static TypeRecord unknown();
  static TypeRecord named(std::string name, TypeRecord slot);
  /// A ranked array; dims.size() is the rank.
  static TypeRecord ndarray(TypeRecord element, std::vector<std::optional<std::int64_t>> dims);
  static TypeRecord unrankedNDArray(TypeRecord element);
  static TypeRecord slist(std::vector<TypeRecord> slots);
  static TypeRecord stuple(std::vector<TypeRecord> slots);
  static TypeRecord sdict(std::vector<std::string> keys, std::vector<TypeRecord> slots);
  static TypeRecord pyHomogeneousList(TypeRecord element);
  /// `dict`, `list`, `scalar` wrappers.
  static TypeRecord wrap(RecordKind kind, TypeRecord inner);

  friend bool operator==(const TypeRecord&, const TypeRecord&) = default;
};

/// A whole `iree.abi` object.
struct Reflection {
  std::vector<TypeRecord> args;        ///< "a"
  std::vector<TypeRecord> results;     ///< "r"
  std::optional<std::int64_t> version; ///< "v", when present
  friend bool operator==(const Reflection&, const Reflection&) = default;
};

/// Parses `iree.abi` JSON. "a" and "r" are required arrays, "v" an optional
/// integer; other keys are ignored. Every record is validated (primitive names
/// are i<bits>, f<bits> or bf16; ndarray dims match its rank; sdict entries are
/// [key, record]; `dict` wraps an sdict, `list` an slist or stuple, `scalar` a
/// primitive). Every failure is a ParseError with a byte offset: malformed
/// JSON, nesting deeper than kMaxNestingDepth, or an invalid record, whose
/// message also names its position (e.g. `a[1][2]: ...`) and whose offset is
/// where that record starts (0 for a missing or mistyped "a", "r" or "v").
Expected<Reflection> parseReflection(std::string_view json);
/// Parses one record's JSON text.
Expected<TypeRecord> parseTypeRecord(std::string_view json);

/// Compact JSON, keys in the order a, r, v (v only when present), as
/// producers emit it: parseReflection(toJson(r)) == r.
std::string toJson(const Reflection& reflection);
std::string toJson(const TypeRecord& record);

/// A readable multi-line form (what `memjit demangle --json` prints), e.g.
///   args:
///     0: ndarray<f32, 2x?>
///     1: named "n"
///       i32
///   results:
///     0: i32
///   version: 1
std::string toReadableString(const Reflection& reflection);

/// The default reflection of a function type (v = 1): scalars as primitives
/// (signedness dropped: si32 and ui32 are "i32"; index is "i64"; i1 is "i1";
/// pointers and complex numbers "unknown"), ranked memrefs as ndarrays with
/// null for dynamic dims, unranked memrefs as ndarrays of null rank.
Reflection defaultReflection(const FunctionType& type);
/// The record defaultReflection uses for one type.
TypeRecord defaultRecord(const Type& type);

/// How many raw arguments a record consumes (see the table at the top).
std::size_t rawArity(const TypeRecord& record) noexcept;
/// Checks that the args consume exactly `numRawInputs` raw arguments and the
/// results `numRawResults` (ArityMismatch naming both counts otherwise).
[[nodiscard]] Error checkArity(const Reflection& reflection, std::size_t numRawInputs,
                               std::size_t numRawResults);

}  // namespace memjit::signature
