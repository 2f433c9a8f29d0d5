// The Raw Function ABI (`fv = 1`, `f = <signature>`, optional `fbr = <name>`):
// a flat description of each raw argument and result as a buffer, scalar,
// reference or unrecognized type.
//
//   signature   ::= 'I' span(type*) 'R' span(type*)
//   type        ::= 'B' span(('t' code)? ('d' dim)*)   buffer; dim -1 is dynamic
//                 | 'S' span(('t' code)?)              scalar
//                 | 'O' span(any)                      reference object
//                 | 'U' span(any)                      unrecognized
//   code        ::= 0..11 (float32 when absent)
//
// Mapping from memjit's FunctionType (what is lost is carried losslessly by
// the MLIR type text beside it, `_memjit_type_<fn>`, see metadata_symbols.h):
//   f32 f16 f64 bf16         -> t0 (omitted) t1 t2 t3
//   si8..si64 / ui8..ui64    -> t4..t7 / t8..t11
//   i8..i64 (signless)       -> t4..t7 (read as signed: signlessness is lost)
//   i1                       -> t4 sint8 (its storage byte; "boolean" is lost)
//   index                    -> t7 sint64 (64-bit hosts; "index" is lost)
//   !llvm.ptr scalar         -> O (reference object)
//   complex<f32|f64>, memref of !llvm.ptr or complex -> U (unrecognized)
//   memref<...>              -> B with its element and shape; strided layouts
//                               (offset, strides) and the memory space are lost
//   memref<*x...>            -> U (the grammar has no unranked buffers)
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
#include "memjit/types.h"

namespace memjit::signature {

/// The scalar element codes t0..t11 of the raw ABI, in code order.
enum class RawElement : std::uint8_t {
  Float32 = 0, Float16, Float64, BFloat16,
  SInt8, SInt16, SInt32, SInt64,
  UInt8, UInt16, UInt32, UInt64,
};
inline constexpr unsigned kNumRawElements = 12;

/// The ToString name: "float32", "bfloat16", "sint32", "uint64", ...
std::string_view rawElementName(RawElement e) noexcept;
/// Size of one element in bytes.
std::size_t rawElementSize(RawElement e) noexcept;
/// The element for code 0..11, or nullopt.
std::optional<RawElement> rawElementFromCode(std::int64_t code) noexcept;

/// The raw ABI's marker for a dynamic dim.
inline constexpr std::int64_t kRawDynamicDim = -1;

/// `B`: a buffer. `element` is empty when the encoding omits `t` (float32).
struct RawBuffer {
  std::optional<RawElement> element;
  std::vector<std::int64_t> dims;  ///< >= 0, or kRawDynamicDim
  RawElement elementOrDefault() const noexcept { return element.value_or(RawElement::Float32); }
  friend bool operator==(const RawBuffer&, const RawBuffer&) = default;
};
/// `S`: a scalar. `element` is empty when the encoding omits `t` (float32).
struct RawScalar {
  std::optional<RawElement> element;
  RawElement elementOrDefault() const noexcept { return element.value_or(RawElement::Float32); }
  friend bool operator==(const RawScalar&, const RawScalar&) = default;
};
/// `O`: a reference object. Its span's content is unspecified ("details
/// TBD") and kept as is so that re-mangling reproduces it.
struct RawRefObject {
  std::string details;
  friend bool operator==(const RawRefObject&, const RawRefObject&) = default;
};
/// `U`: a type the producer could not describe. Accepted, printed, kept.
struct RawUnrecognized {
  std::string details;
  friend bool operator==(const RawUnrecognized&, const RawUnrecognized&) = default;
};

using RawType = std::variant<RawBuffer, RawScalar, RawRefObject, RawUnrecognized>;

/// A parsed `f` attribute.
struct RawSignature {
  std::vector<RawType> inputs;
  std::vector<RawType> results;
  friend bool operator==(const RawSignature&, const RawSignature&) = default;
};

/// Parses an `f` value. Errors are ParseErrors naming the byte offset and
/// what was expected (missing `I`/`R`, illegal element code, unknown buffer
/// field, dim below -1, malformed span, trailing data).
Expected<RawSignature> parseRawSignature(std::string_view f);

/// Encodes a signature; parseRawSignature(mangle(s)) == s.
std::string mangle(const RawSignature& sig);
/// Encodes one type (`B13!t2d-1d128d64`, `S3!t6`, `O1!`).
std::string mangle(const RawType& type);

/// The reference ToString form of one type: `Buffer<float32[?x128x64]>`,
/// `sint32`, `RefObject<?>`, `Unrecognized<?>` (memjit's spelling: the
/// reference printer had none because its parser rejected `U`).
std::string toString(const RawType& type);
/// `(Buffer<float32[?x128x64]>, sint32) -> (Buffer<uint64[32x?x64]>)`.
std::string toString(const RawSignature& sig);

/// The raw description of one memjit type (see the mapping at the top).
RawType toRawType(const Type& type);
/// The raw description of a function type.
RawSignature toRawSignature(const FunctionType& type);
/// The raw element for an element type, or nullopt when the raw ABI has none
/// (pointer, complex).
std::optional<RawElement> toRawElement(ElementType type) noexcept;
/// The memjit element type a raw element names (signed/unsigned spellings:
/// t6 is si32, t10 is ui32).
ElementType toElementType(RawElement element) noexcept;

/// The attribute set of the Raw Function ABI: `fv` = "1", `f`, and `fbr`
/// when a result allocator is named.
AttributeMap rawAttributes(const FunctionType& type,
                           std::optional<std::string> resultAllocator = std::nullopt);
/// Reads `fv` (must be "1") and `f` from an attribute set and parses `f`.
/// NotFound when `f` is missing; Unsupported for another `fv`.
Expected<RawSignature> parseRawAttributes(const AttributeMap& attributes);

}  // namespace memjit::signature
