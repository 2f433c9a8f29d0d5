// The type model: element types, ranked and unranked memref types, function
// types. Mirrors MLIR's builtin types closely enough to print and parse them in
// MLIR 19's syntax (see type_syntax.h), with no dependency on MLIR or LLVM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

#include "memjit/error.h"

namespace memjit {

/// A scalar or memref element type. The integer kinds keep MLIR's three
/// signedness spellings apart (`i32`, `si32`, `ui32`): they lower to the same
/// LLVM type, but the signature metadata tells them apart.
enum class ElementType : std::uint8_t {
  I1, I8, I16, I32, I64,
  SI8, SI16, SI32, SI64,
  UI8, UI16, UI32, UI64,
  F16, BF16, F32, F64,
  Index,       ///< MLIR `index`: a pointer-sized integer (i64 unless the index bitwidth is 32)
  Ptr,         ///< an opaque pointer, `!llvm.ptr`
  ComplexF32,  ///< `complex<f32>`: two f32, real first
  ComplexF64,  ///< `complex<f64>`
};

/// Every element type, in declaration order (for tests and tables).
inline constexpr ElementType kAllElementTypes[] = {
    ElementType::I1,   ElementType::I8,   ElementType::I16,  ElementType::I32,
    ElementType::I64,  ElementType::SI8,  ElementType::SI16, ElementType::SI32,
    ElementType::SI64, ElementType::UI8,  ElementType::UI16, ElementType::UI32,
    ElementType::UI64, ElementType::F16,  ElementType::BF16, ElementType::F32,
    ElementType::F64,  ElementType::Index, ElementType::Ptr, ElementType::ComplexF32,
    ElementType::ComplexF64};

bool isInteger(ElementType t) noexcept;          ///< i*, si*, ui* (not index)
bool isSignedInteger(ElementType t) noexcept;    ///< si*
bool isUnsignedInteger(ElementType t) noexcept;  ///< ui*
bool isFloat(ElementType t) noexcept;            ///< f16, bf16, f32, f64
bool isComplex(ElementType t) noexcept;
/// Width in bits of the value (i1 is 1, index is 64, ptr is 64, complex<f32> is 64).
unsigned bitWidth(ElementType t) noexcept;
/// Bytes one element occupies in memory on a 64-bit host (i1 takes a byte).
std::size_t storageSize(ElementType t) noexcept;
/// For complex types, the component type; otherwise `t`.
ElementType componentType(ElementType t) noexcept;
/// MLIR's spelling: "i32", "si8", "bf16", "index", "!llvm.ptr", "complex<f32>".
std::string_view spelling(ElementType t) noexcept;

/// MLIR's marker for a dynamic size, stride or offset (ShapedType::kDynamic).
inline constexpr std::int64_t kDynamic = std::numeric_limits<std::int64_t>::min();

/// An explicit `strided<[s0, s1, ...], offset: o>` layout. kDynamic marks `?`.
struct StridedLayout {
  std::int64_t offset = 0;
  std::vector<std::int64_t> strides;
  friend bool operator==(const StridedLayout&, const StridedLayout&) = default;
};

/// A ranked memref: element type, shape (kDynamic for `?`), layout and memory
/// space. A missing layout is the identity (row-major, contiguous, offset 0).
class MemRefType {
 public:
  /// Checks the parts: dims are >= 0 or kDynamic and the layout has one
  /// stride per dim. Strides and offset may be negative, as in MLIR.
  static Expected<MemRefType> get(ElementType element, std::vector<std::int64_t> shape,
                                  std::optional<StridedLayout> layout = std::nullopt,
                                  unsigned memorySpace = 0);
  /// Unchecked construction for callers that know the parts are valid.
  MemRefType(ElementType element, std::vector<std::int64_t> shape,
             std::optional<StridedLayout> layout = std::nullopt, unsigned memorySpace = 0)
      : element_(element), shape_(std::move(shape)), layout_(std::move(layout)),
        memorySpace_(memorySpace) {}

  ElementType element() const noexcept { return element_; }
  const std::vector<std::int64_t>& shape() const noexcept { return shape_; }
  std::size_t rank() const noexcept { return shape_.size(); }
  std::int64_t dim(std::size_t i) const { return shape_.at(i); }
  bool isDynamicDim(std::size_t i) const { return shape_.at(i) == kDynamic; }
  bool hasStaticShape() const noexcept;
  /// Number of dynamic dims.
  std::size_t numDynamicDims() const noexcept;
  /// The explicit layout, or nullopt for the identity layout.
  const std::optional<StridedLayout>& layout() const noexcept { return layout_; }
  bool hasIdentityLayout() const noexcept { return !layout_.has_value(); }
  unsigned memorySpace() const noexcept { return memorySpace_; }

  /// The offset and strides a descriptor of this type must hold: from the
  /// explicit layout, or for the identity layout offset 0 and row-major
  /// strides (kDynamic where a later dim is dynamic).
  std::int64_t effectiveOffset() const noexcept;
  std::vector<std::int64_t> effectiveStrides() const;
  /// Element count when the shape is static.
  std::optional<std::int64_t> numElements() const noexcept;

  friend bool operator==(const MemRefType&, const MemRefType&) = default;

 private:
  ElementType element_;
  std::vector<std::int64_t> shape_;
  std::optional<StridedLayout> layout_;
  unsigned memorySpace_ = 0;
};

/// `memref<*xT>`: rank known only at run time.
struct UnrankedMemRefType {
  ElementType element;
  unsigned memorySpace = 0;
  friend bool operator==(const UnrankedMemRefType&, const UnrankedMemRefType&) = default;
};

/// An argument or result type: a scalar, a ranked or an unranked memref.
using Type = std::variant<ElementType, MemRefType, UnrankedMemRefType>;

inline bool isScalar(const Type& t) noexcept { return t.index() == 0; }
inline bool isRankedMemRef(const Type& t) noexcept { return t.index() == 1; }
inline bool isUnrankedMemRef(const Type& t) noexcept { return t.index() == 2; }
inline bool isMemRef(const Type& t) noexcept { return t.index() != 0; }
/// The element type of a memref, or the scalar type itself.
ElementType elementOf(const Type& t) noexcept;

/// `(inputs) -> (results)`.
struct FunctionType {
  std::vector<Type> inputs;
  std::vector<Type> results;
  friend bool operator==(const FunctionType&, const FunctionType&) = default;
};

}  // namespace memjit
