#include "call_shape.h"

#include <array>
#include <cstring>
#include <utility>

#include "memjit/runtime/half.h"
#include "memjit/type_syntax.h"

#if defined(__clang__)
// The thunks call through a pointer type the callee was not declared with;
// that is the point of them (as it is libffi's).
#define MEMJIT_THUNK_ATTR __attribute__((no_sanitize("function")))
#else
#define MEMJIT_THUNK_ATTR
#endif

namespace memjit::runtime::detail {
namespace {

using Word = std::uint64_t;

std::size_t alignOf(const Type& t) {
  if (isMemRef(t)) return 8;
  ElementType e = std::get<ElementType>(t);
  if (isComplex(e)) return storageSize(componentType(e));
  return storageSize(e);
}
std::size_t sizeOf(const Type& t) {
  if (const auto* m = std::get_if<MemRefType>(&t)) return 8 * (3 + 2 * m->rank());
  if (isUnrankedMemRef(t)) return 16;
  return storageSize(std::get<ElementType>(t));
}

template <std::size_t I>
using WordAt = Word;

template <typename R, std::size_t... I>
MEMJIT_THUNK_ATTR void thunkImpl(void* fn, const Word* w, void* ret, std::index_sequence<I...>) {
  using Fn = R (*)(WordAt<I>...);
  if constexpr (std::is_void_v<R>) {
    reinterpret_cast<Fn>(fn)(w[I]...);
  } else {
    R r = reinterpret_cast<Fn>(fn)(w[I]...);
    std::memcpy(ret, &r, sizeof(R));
  }
}
template <typename R, std::size_t N>
void thunk(void* fn, const Word* w, void* ret) {
  thunkImpl<R>(fn, w, ret, std::make_index_sequence<N>{});
}
template <typename R, std::size_t... N>
constexpr std::array<CallShape::Thunk, sizeof...(N)> thunkTable(std::index_sequence<N...>) {
  return {&thunk<R, N>...};
}
constexpr std::size_t kMaxThunkWords = 8;
constexpr auto kVoidThunks = thunkTable<void>(std::make_index_sequence<kMaxThunkWords + 1>{});
constexpr auto kWordThunks = thunkTable<Word>(std::make_index_sequence<kMaxThunkWords + 1>{});
constexpr auto kF32Thunks = thunkTable<float>(std::make_index_sequence<kMaxThunkWords + 1>{});
constexpr auto kF64Thunks = thunkTable<double>(std::make_index_sequence<kMaxThunkWords + 1>{});

// The libffi type of a scalar passed or returned by value; null if none.
ffi_type* ffiScalar(ElementType e) {
  switch (e) {
    case ElementType::I1: return &ffi_type_uint8;
    case ElementType::I8: case ElementType::SI8: return &ffi_type_sint8;
    case ElementType::UI8: return &ffi_type_uint8;
    case ElementType::I16: case ElementType::SI16: return &ffi_type_sint16;
    case ElementType::UI16: return &ffi_type_uint16;
    case ElementType::I32: case ElementType::SI32: return &ffi_type_sint32;
    case ElementType::UI32: return &ffi_type_uint32;
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: return &ffi_type_sint64;
    case ElementType::UI64: return &ffi_type_uint64;
    case ElementType::F32: return &ffi_type_float;
    case ElementType::F64: return &ffi_type_double;
    case ElementType::Ptr: return &ffi_type_pointer;
#if defined(MEMJIT_HALF_FLOAT_CARRIER)
    // libffi 3.4 has no half type. On x86-64 SysV LLVM passes half and
    // bfloat in the low 16 bits of an XMM register, or of an 8-byte stack
    // slot, and returns them in xmm0's: exactly where a float whose low 16
    // bits are the value travels (packScalar leaves the upper bits zero).
    case ElementType::F16: case ElementType::BF16: return &ffi_type_float;
#endif
    default: return nullptr;  // complex (and f16/bf16 elsewhere): no by-value ABI libffi can express
  }
}

// Why a scalar of type `e` cannot be passed or returned by value.
std::string whyUnsupported(ElementType e) {
  if (isComplex(e)) return "which has no C equivalent the dynamic invoker can build (pass it in a memref)";
  return "which the dynamic invoker supports only on x86-64 SysV (libffi has no half type; pass it in a memref)";
}
bool integerClass(ElementType e) { return !isFloat(e) && !isComplex(e); }

}  // namespace

ResultLayout resultLayout(const FunctionType& type) {
  ResultLayout l;
  l.viaPointer = type.results.size() > 1 || (type.results.size() == 1 && isMemRef(type.results[0]));
  std::size_t at = 0;
  for (const auto& r : type.results) {
    std::size_t a = alignOf(r);
    at = (at + a - 1) / a * a;
    l.offsets.push_back(at);
    at += sizeOf(r);
    l.align = std::max(l.align, a);
  }
  l.size = (at + l.align - 1) / l.align * l.align;
  return l;
}

CallShape::CallShape(const FunctionType& type) : results_(resultLayout(type)) {
  bool allInteger = true;
  if (results_.viaPointer) types_.push_back(&ffi_type_pointer);
  for (std::size_t i = 0; i < type.inputs.size(); ++i) {
    const Type& t = type.inputs[i];
    if (isMemRef(t)) {
      types_.push_back(&ffi_type_pointer);
      continue;
    }
    ElementType e = std::get<ElementType>(t);
    ffi_type* f = ffiScalar(e);
    if (!f) {
      unsupported_ = "input " + std::to_string(i) + " is a " + toString(e) + " scalar passed by value, " +
                     whyUnsupported(e);
      return;
    }
    allInteger = allInteger && integerClass(e);
    types_.push_back(f);
  }
  numWords_ = types_.size();
  ffi_type* rtype = &ffi_type_void;
  enum { Void, Int, F32, F64 } rclass = Void;
  if (!results_.viaPointer && type.results.size() == 1) {
    ElementType e = std::get<ElementType>(type.results[0]);
    rtype = ffiScalar(e);
    if (!rtype) {
      unsupported_ = "the result is a " + toString(e) + " scalar returned by value, " + whyUnsupported(e);
      return;
    }
    // An f16/bf16 result is in xmm0's low bits, where a float result is.
    rclass = e == ElementType::F64 ? F64 : isFloat(e) ? F32 : Int;
  }
  if (ffi_prep_cif(&cif_, FFI_DEFAULT_ABI, static_cast<unsigned>(types_.size()), rtype, types_.data()) != FFI_OK) {
    unsupported_ = "libffi cannot prepare a call of " + toString(type);
    return;
  }
#if defined(__x86_64__) || defined(__aarch64__)
  // On SysV x86-64 and AAPCS64 integer-class arguments go to integer
  // registers (then the stack) in order, one 64-bit slot each, so a call
  // through a pointer to a function of N words is the same call.
  if (allInteger && numWords_ <= kMaxThunkWords) {
    switch (rclass) {
      case Void: thunk_ = kVoidThunks[numWords_]; break;
      case Int: thunk_ = kWordThunks[numWords_]; break;
      case F32: thunk_ = kF32Thunks[numWords_]; break;
      case F64: thunk_ = kF64Thunks[numWords_]; break;
    }
  }
#endif
}

void CallShape::callThroughLibffi(void* fn, std::uint64_t* words, void* ret) const {
  void* values[64];
  std::vector<void*> heap;
  void** argv = values;
  if (numWords_ > 64) {
    heap.resize(numWords_);
    argv = heap.data();
  }
  for (std::size_t i = 0; i < numWords_; ++i) argv[i] = &words[i];
  ffi_call(const_cast<ffi_cif*>(&cif_), FFI_FN(fn), ret, argv);
}

}  // namespace memjit::runtime::detail
