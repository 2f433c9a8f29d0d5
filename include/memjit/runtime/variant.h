// The dynamic invoker's value type: None, a scalar, a string, a buffer, or a
// list, tuple or dict of values -- what a Python-like caller hands over and
// what structured results come back as.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <dlpack/dlpack.h>

#include "memjit/error.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/half.h"
#include "memjit/runtime/memref.h"
#include "memjit/types.h"

namespace memjit::runtime {

/// A scalar with its element type. Values made from C++ integers are `i64`
/// (or `ui64`), from double `f64`, from float `f32`, from bool `i1`, from
/// memjit::f16/bf16 `f16`/`bf16`; the invoker converts them to the parameter's
/// type when the value is unchanged by it (see docs/runtime.md, "Half
/// precision at the boundary, and scalar conversions").
/// f16 and bf16 scalars hold their bit pattern in `u`, so NaN payloads pass
/// through unchanged; other floats hold their value in `f`.
struct Scalar {
  ElementType type = ElementType::I64;
  union {
    std::int64_t i;
    std::uint64_t u;
    double f;
    void* p;
  };
  Scalar() : i(0) {}
  /// The value as a double (integers converted).
  double toDouble() const noexcept;
  /// `5`, `2.5`, `true` and the like.
  std::string str() const;
};

class Variant {
 public:
  enum class Kind : std::uint8_t { None, Scalar, String, Buffer, List, Tuple, Dict };

  /// None.
  Variant() = default;
  Variant(bool v);
  Variant(int v) : Variant(static_cast<long long>(v)) {}
  Variant(long v) : Variant(static_cast<long long>(v)) {}
  Variant(long long v);
  Variant(unsigned v) : Variant(static_cast<long long>(v)) {}
  Variant(unsigned long v);
  Variant(unsigned long long v) : Variant(static_cast<unsigned long>(v)) {}
  Variant(float v);
  Variant(double v);
  Variant(f16 v);
  Variant(bf16 v);
#if defined(MEMJIT_HAS_FLOAT16)
  template <typename T>
    requires std::is_same_v<T, _Float16>
  Variant(T v) : Variant(f16(v)) {}
#endif
#if defined(MEMJIT_HAS_BF16)
  template <typename T>
    requires std::is_same_v<T, __bf16>
  Variant(T v) : Variant(bf16(v)) {}
#endif
  Variant(void* p);
  Variant(Scalar s);
  /// A string: passed as a 1-D i8 memref over its bytes (no terminator).
  Variant(std::string s);
  Variant(const char* s) : Variant(std::string(s)) {}
  Variant(Buffer b);
  /// A non-owning buffer over a typed descriptor.
  template <typename T, int N>
  Variant(const StridedMemRef<T, N>& m) : Variant(Buffer::fromMemRef(m)) {}
  /// A zero-copy view of a DLPack tensor (which must outlive the value).
  static Expected<Variant> fromDLPack(const DLTensor& tensor);
  /// Takes a DLPack managed tensor (its deleter runs when the last copy goes).
  static Expected<Variant> adoptDLPack(DLManagedTensor* tensor);

  static Variant list(std::vector<Variant> items);
  static Variant tuple(std::vector<Variant> items);
  /// A dict; keys keep the given order.
  static Variant dict(std::vector<std::pair<std::string, Variant>> entries);

  Kind kind() const noexcept { return kind_; }
  bool isNone() const noexcept { return kind_ == Kind::None; }
  bool isScalar() const noexcept { return kind_ == Kind::Scalar; }
  bool isString() const noexcept { return kind_ == Kind::String; }
  bool isBuffer() const noexcept { return kind_ == Kind::Buffer; }
  /// List or tuple.
  bool isSequence() const noexcept { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool isDict() const noexcept { return kind_ == Kind::Dict; }

  const Scalar& scalar() const noexcept { return scalar_; }
  const std::string& string() const noexcept { return aggregate().string; }
  const Buffer& buffer() const noexcept { return buffer_; }
  Buffer& buffer() noexcept { return buffer_; }
  /// Items of a list or tuple; values of a dict (parallel to keys()).
  const std::vector<Variant>& items() const noexcept { return aggregate().items; }
  const std::vector<std::string>& keys() const noexcept { return aggregate().keys; }
  std::size_t size() const noexcept { return agg_ ? agg_->items.size() : 0; }
  const Variant& operator[](std::size_t i) const { return items().at(i); }
  /// A dict's value for `key`, or nullptr.
  const Variant* find(std::string_view key) const noexcept;

  /// Scalar accessors (unchecked conversions of the held scalar).
  std::int64_t toInt() const noexcept { return scalar_.i; }
  double toDouble() const noexcept { return scalar_.toDouble(); }
  /// An f16/bf16 scalar's bits as they came; other scalars rounded from toDouble().
  f16 toF16() const noexcept;
  bf16 toBF16() const noexcept;

  /// How diagnostics print a received value: `sint32[384]`, `int 5`,
  /// `float 2.5`, `string "ab"`, `list of 3`, `tuple of 2`, `dict {a, b}`, `None`.
  std::string describe() const;

 private:
  // Strings, sequences and dicts are immutable once made, so copies share
  // them; keeping them out of line keeps a scalar or buffer Variant small and
  // cheap to make and destroy on the call path.
  struct Aggregate {
    std::string string;
    std::vector<Variant> items;
    std::vector<std::string> keys;
  };
  const Aggregate& aggregate() const noexcept;

  Kind kind_ = Kind::None;
  Scalar scalar_;
  Buffer buffer_;
  std::shared_ptr<const Aggregate> agg_;
};

/// Keyword arguments, in the caller's order.
using KeywordArgs = std::vector<std::pair<std::string, Variant>>;

}  // namespace memjit::runtime
