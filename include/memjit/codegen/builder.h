// The kernel builder: write a memjit function's body in C++ the way a numerical programmer thinks (constants,
// arithmetic, loops, memref loads and stores), emitting LLVM IR that follows MLIR's memref lowering.
//
//   codegen::Module m("kernels");
//   FunctionOptions o; o.noalias = true;
//   FunctionBuilder b(m, "add", *parseFunctionType("(memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()"), o);
//   Value a = b.arg(0), x = b.arg(1), y = b.arg(2);
//   b.forLoop(b.index(0), b.dim(a, 0), b.index(1), [&](Value i) {
//     b.store(b.load(a, {i}) + b.load(x, {i}), y, {i});
//   });
//   b.ret();
//   if (Error e = b.finish()) ...;
//
// The kernel language is MLIR's `arith`, `math`, `scf`, `memref` and `vector` dialects; docs/kernel-language.md
// maps every operation to its MLIR op. Operators work on Values and mix with C++ literals converted exactly to the
// Value's type (`x * 2.0f`, `i + 1`); an inexact literal is an error. Floating-point operations are exact IEEE
// unless fast-math flags (fast_math.h) are given for the function (FunctionOptions::fastMath) or a region
// (withFastMath). FunctionOptions::checked adds run-time checks of indices, divisions, alloc sizes and view bounds
// (memjit/runtime/checks.h).
//
// Errors are sticky: the first misuse (wrong type, wrong index count, a value of another function) is recorded with
// the operation and the types named, later operations do nothing, and finish() returns it. finish() also runs
// llvm::verifyFunction, so no invalid function leaves the builder.
//
// Source locations. Every operation takes a last, defaulted `Loc loc` (callers never write it): the line of the
// generator that called it. With FunctionOptions::debugInfo the operation's instructions carry that line as their
// DWARF location, so gdb, perf and AOT objects show generator.cpp:LINE for kernel code. With or without it, an error
// names that line ("in function 'f' at generator.cpp:4321: operation 'constant': ..."), so a failure at step 4,321 of
// a generated chain points at the generator's code that made it. Operators cannot take a defaulted parameter after their operands, so
// their left operand is a `Located`: a Value converts to it implicitly, and the default argument of that conversion
// is evaluated where the operator is written. Operations built inside another operation keep the outer one's line;
// user callbacks (bodies, branches, combiners) get their own. How an operation applies its location:
// detail::OpLocation in src/codegen/builder_impl.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "memjit/codegen/fast_math.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/types.h"
#include "memjit/vector_type.h"

namespace llvm {
class Function;
class IRBuilderBase;
class StoreInst;
class Value;
}  // namespace llvm

namespace memjit::codegen {

/// Every operation's last parameter: the generator's line, defaulted where the call is written (see "Source
/// locations" above).
using Loc = std::source_location;

class FunctionBuilder;
struct BuilderOps;

/// A value of the function being built: a scalar, a vector (`vector<16xf32>`, see "vectors" below), a ranked
/// memref (its descriptor) or an unranked memref (`{rank, ptr}`). Default-constructed or produced after an error, it
/// is invalid.
class Value {
 public:
  Value() = default;
  bool valid() const noexcept { return value_ != nullptr; }
  const Type& type() const noexcept { return type_; }        ///< for a vector, its element type
  bool isVector() const noexcept { return lanes_ != 0; }     ///< a vector of lanes() elements of type()
  std::uint32_t lanes() const noexcept { return lanes_; }    ///< 0 for scalars and memrefs
  std::optional<VectorType> vectorType() const;              ///< nullopt for scalars and memrefs
  std::string typeName() const;                              ///< MLIR's spelling: "f32", "vector<16xf32>", ...
  llvm::Value* llvm() const noexcept { return value_; }
  FunctionBuilder* builder() const noexcept { return builder_; }

 private:
  friend class FunctionBuilder;
  friend struct BuilderOps;
  // Vector values are told apart by their LLVM type (no memjit scalar or memref lowers to an LLVM vector).
  Value(FunctionBuilder* b, llvm::Value* v, Type t);
  FunctionBuilder* builder_ = nullptr;
  llvm::Value* value_ = nullptr;
  Type type_ = ElementType::I1;
  std::uint32_t lanes_ = 0;
};

/// Comparison predicates; signedness and float ordering come from the type (floats compare ordered, except Ne
/// which is true for NaN, as in C).
enum class CmpPredicate { Eq, Ne, Lt, Le, Gt, Ge };

/// A static or dynamic index (MLIR's OpFoldResult) for subviews and casts.
struct IndexOperand {
  IndexOperand(std::int64_t v) : value(v) {}
  IndexOperand(int v) : value(static_cast<std::int64_t>(v)) {}
  IndexOperand(Value v) : value(std::move(v)) {}
  std::variant<std::int64_t, Value> value;
};

struct StoreOptions {
  /// Streaming store: bypass caches for data not read soon. Emitted as a tag (see metadata_symbols.h) that memjit's
  /// pipeline turns into `!nontemporal` after vectorisation, so loops of such stores still vectorise.
  bool nontemporal = false;
};

/// Options of vector loads and stores.
struct VectorMemoryOptions {
  /// Alignment in bytes the caller guarantees for the first lane's address (a power of two); 0: the element's
  /// alignment, as MLIR's lowering gives (LLVM raises it where it can prove more, e.g. from an argument's
  /// ArgumentAttributes::alignment).
  unsigned alignment = 0;
  bool nontemporal = false;  ///< stores only: a streaming store, as StoreOptions::nontemporal
};

/// Hints for the loop vectoriser and unroller on one loop (LLVM loop metadata, as clang's `#pragma clang loop`).
/// 0 leaves the choice to LLVM.
struct LoopOptions {
  /// Lanes per vector iteration: 1 keeps the loop scalar, N > 1 asks for N (LLVM still refuses where vectorising
  /// would be wrong). LLVM also takes N > 1 as permission to reorder float operations, so on a loop carrying a float
  /// scalar (a sum) N > 1 is ignored unless the function's fast-math includes `reassoc`.
  unsigned vectorWidth = 0;
  unsigned interleave = 0;  ///< iterations interleaved per step (independent accumulators): 1 disables
  unsigned unroll = 0;      ///< unroll count of the (vectorised) loop: 1 disables unrolling
};

/// C++ values usable as literals of the kernel language.
template <typename T>
concept Literal = std::is_arithmetic_v<T> && !std::is_same_v<std::remove_cv_t<T>, long double>;

/// Marks a store built through FunctionBuilder::ir() as streaming, exactly as store(..., {.nontemporal = true})
/// marks its own.
void markNontemporal(llvm::StoreInst* store);

// --- parallel loops (see FunctionBuilder::parallelFor) ---

/// How a parallel loop's iterations are dealt to threads.
enum class ParallelSchedule {
  Static,   ///< fixed chunks dealt in advance (one block per thread without a chunk)
  Dynamic,  ///< threads take the next chunk when done (for uneven iterations)
};

struct ParallelOptions {
  std::int64_t chunk = 0;  ///< iterations per chunk; 0 lets the scheduler choose (static: one block per thread)
  ParallelSchedule schedule = ParallelSchedule::Static;
  std::int32_t maxThreads = 0;  ///< at most this many threads for this loop; 0: the process's thread count
  /// Scalar parallelReduce only: bitwise-identical results for any thread count and schedule. The iterations are cut
  /// into blocks of `chunk` iterations (0: max(1024, ceil(n / 1024)), a function of the trip count n alone), each
  /// block folds its iterations in order from the identity, and the block partials are combined in a fixed pairwise
  /// tree, then into `init` (docs/parallel-loops.md#deterministic-reductions).
  bool deterministic = false;
};

/// A value reduced across a parallel loop's iterations: `init` combined with every iteration's contribution by an
/// associative (and commutative) combiner. Chunks start from the combiner's identity and their partial results are
/// combined in whatever order threads finish, so float results may differ from the serial order in the last bits;
/// integer results are exact.
struct Reduction {
  enum class Kind { Sum, Product, Min, Max, Custom };
  Kind kind = Kind::Sum;
  Value init;
  /// Custom only: the combiner's identity and the combiner itself (built with the same builder, from its two
  /// operands).
  Value identity;
  std::function<Value(Value, Value)> combine;

  static Reduction sum(Value init) { return {Kind::Sum, std::move(init), {}, {}}; }
  static Reduction product(Value init) { return {Kind::Product, std::move(init), {}, {}}; }
  static Reduction min(Value init) { return {Kind::Min, std::move(init), {}, {}}; }
  static Reduction max(Value init) { return {Kind::Max, std::move(init), {}, {}}; }
  static Reduction custom(Value init, Value identity, std::function<Value(Value, Value)> combine) {
    return {Kind::Custom, std::move(init), std::move(identity), std::move(combine)};
  }
};

// --- atomics (see FunctionBuilder::atomicRMW) ---

/// What an atomic read-modify-write does to a memref element with operand `v`: MLIR's arith::AtomicRMWKind
/// (memref.atomic_rmw), plus Xori. Integer kinds take integer and index elements (Maxs/Mins compare signed, Maxu/Minu
/// unsigned, whatever the type's signedness, as in MLIR); float kinds take f16, bf16, f32 and f64; Assign (exchange)
/// takes both.
enum class AtomicKind {
  Addi, Muli, Andi, Ori, Xori, Maxs, Maxu, Mins, Minu,  ///< integers
  Addf, Mulf,                                           ///< floats
  Maximumf, Minimumf,  ///< NaN-propagating, -0 < +0 (arith.maximumf/minimumf)
  Maxnumf, Minnumf,    ///< NaN-ignoring (arith.maxnumf/minnumf)
  Assign,              ///< exchange: stores `v`
};

/// The memory ordering of an atomic operation (C++'s std::memory_order, LLVM's orderings). MLIR's memref.atomic_rmw
/// has no ordering operand and always lowers to acq_rel, memjit's default; Relaxed suffices for counters whose final
/// values are read after the parallel loop (its end orders every thread's updates before what follows).
enum class AtomicOrdering { Relaxed, Acquire, Release, AcqRel, SeqCst };

/// An array accumulated across a parallel loop's iterations, as OpenMP's `reduction(+: bins[:256])`: every chunk
/// (one per thread with the default static schedule) updates a private copy of `accumulator` that starts at the
/// combiner's identity, then combines it element by element into `accumulator` atomically. `accumulator` (a ranked
/// memref of integers of 8 bits or more, index or floats, any layout) holds the initial values. The combiners are
/// Reduction's built-in ones: sum, product, min, max (signed or unsigned by type; NaN-ignoring for floats).
struct ArrayReduction {
  Reduction::Kind kind = Reduction::Kind::Sum;  ///< Sum, Product, Min or Max
  Value accumulator;

  static ArrayReduction sum(Value m) { return {Reduction::Kind::Sum, std::move(m)}; }
  static ArrayReduction product(Value m) { return {Reduction::Kind::Product, std::move(m)}; }
  static ArrayReduction min(Value m) { return {Reduction::Kind::Min, std::move(m)}; }
  static ArrayReduction max(Value m) { return {Reduction::Kind::Max, std::move(m)}; }
};

class FunctionBuilder {
 public:
  /// Declares `name` in `module` (see defineFunction) and opens its body.
  /// Declaration errors are reported by error() and finish().
  FunctionBuilder(Module& module, std::string name, const FunctionType& type, const FunctionOptions& options = {},
                  Loc loc = Loc::current());
  ~FunctionBuilder();
  FunctionBuilder(const FunctionBuilder&) = delete;
  FunctionBuilder& operator=(const FunctionBuilder&) = delete;

  // --- errors, arguments and constants (builder.cpp) ---
  const Error& error() const noexcept;  ///< the first error so far (success when none)
  /// Closes the body (adding `ret void` when there are no results and no ret yet), verifies the function and
  /// returns the first error. A failed function is removed from the module with everything emitted for it (its C
  /// interface, metadata, outlined parallel bodies, declarations only it used), so the module's other functions
  /// still compile and the name can be defined again; only when other functions call it does its declaration stay
  /// (the error says which). A builder destroyed before finish() removes its function the same way.
  Error finish();
  Value arg(std::size_t i);          ///< input #i in its in-function form (descriptor for memrefs)
  Value arg(std::string_view name);  ///< the input named `name` in FunctionOptions::argumentNames
  /// A constant of scalar type `t` from any C++ integer or float. Integer and index types take integers exactly:
  /// a value outside the type's range (signless types accept the signed and the unsigned range, `si` only the
  /// signed, `ui` only the unsigned one), or a float that is not integral, is an error naming the value and the
  /// type. Float types take integers only when exactly representable, and floats rounded to nearest (0.1 for f32
  /// is the f32 nearest 0.1); a finite value that overflows the type is an error.
  template <Literal T>
  Value constant(ElementType t, T v, Loc loc = Loc::current()) {
    if constexpr (std::is_floating_point_v<T>)
      return constantFromFloat(t, static_cast<double>(v), false, loc);
    else if constexpr (std::is_signed_v<T>)
      return constantFromInteger(t, static_cast<std::uint64_t>(v), v < 0, loc);
    else
      return constantFromInteger(t, static_cast<std::uint64_t>(v), false, loc);
  }
  /// A constant of `like`'s scalar type, converted exactly: as constant(), but a float that the type cannot hold
  /// exactly is an error too. What the operators use for a C++ literal next to a Value; next to a vector, the
  /// constant is splat to its lanes.
  template <Literal T>
  Value constantLike(const Value& like, T v, Loc loc = Loc::current()) {
    auto t = literalType(like, loc);
    if (!t) return {};
    Value c;
    if constexpr (std::is_floating_point_v<T>)
      c = constantFromFloat(*t, static_cast<double>(v), true, loc);
    else
      c = constant(*t, v, loc);
    return like.isVector() ? this->splat(c, like.lanes(), loc) : c;
  }
  Value index(std::int64_t v);
  Value i32(std::int32_t v);
  Value i64(std::int64_t v);
  Value f32(float v);
  Value f64(double v);

  // --- arithmetic, compares, select and casts (builder.cpp) ---
  // Operands of one scalar type. Integers wrap (two's complement), as arith.addi/subi/muli; index arithmetic is
  // `nsw` (it addresses memory). Integer division by zero and INT_MIN / -1 are undefined behaviour, as in MLIR and
  // C; in checked mode (FunctionOptions::checked) they stop the kernel with an error.
  Value add(const Value& a, const Value& b, Loc loc = Loc::current());
  Value sub(const Value& a, const Value& b, Loc loc = Loc::current());
  Value mul(const Value& a, const Value& b, Loc loc = Loc::current());
  Value div(const Value& a, const Value& b, Loc loc = Loc::current());  ///< signed, unsigned for ui (divsi/divui)
  Value rem(const Value& a, const Value& b, Loc loc = Loc::current());  ///< dividend's sign (remsi/remui, fmod)
  Value neg(const Value& a, Loc loc = Loc::current());
  Value cmp(CmpPredicate p, const Value& a, const Value& b, Loc loc = Loc::current());
  Value select(const Value& c, const Value& a, const Value& b, Loc loc = Loc::current());  ///< `c ? a : b`, c: i1
  /// Numeric conversion (ext/trunc, int<->float, float ext/trunc, ptr<->int).
  /// Float to integer out of the target's range is undefined (as fptosi).
  Value cast(const Value& v, ElementType to, Loc loc = Loc::current());

  // --- integers and bits (builder_integer.cpp) ---
  // Integer or index operands of one type.
  /// Reinterprets the bits as `to`, a type of the same width (f32 <-> i32, bf16 <-> i16, ui64 <-> f64, ...):
  /// arith.bitcast.
  Value bitcast(const Value& v, ElementType to, Loc loc = Loc::current());
  /// Explicitly signed or unsigned division and remainder, whatever the type's signedness.
  Value divsi(const Value& a, const Value& b, Loc loc = Loc::current());
  Value divui(const Value& a, const Value& b, Loc loc = Loc::current());
  Value remsi(const Value& a, const Value& b, Loc loc = Loc::current());
  Value remui(const Value& a, const Value& b, Loc loc = Loc::current());
  /// Division rounding towards +inf / -inf (arith.ceildivsi, ceildivui, floordivsi).
  Value ceildivsi(const Value& a, const Value& b, Loc loc = Loc::current());
  Value ceildivui(const Value& a, const Value& b, Loc loc = Loc::current());
  Value floordivsi(const Value& a, const Value& b, Loc loc = Loc::current());
  /// The high half of the double-width product, signed or unsigned from the type (the second result of
  /// arith.mulsi_extended / mului_extended).
  Value mulhi(const Value& a, const Value& b, Loc loc = Loc::current());
  /// Bitwise and, or, xor, not (i1 included: logical operations on conditions).
  Value andi(const Value& a, const Value& b, Loc loc = Loc::current());
  Value ori(const Value& a, const Value& b, Loc loc = Loc::current());
  Value xori(const Value& a, const Value& b, Loc loc = Loc::current());
  Value noti(const Value& a, Loc loc = Loc::current());
  /// Shifts by `n` (same type as `a`). Defined for every `n`: a count at or beyond the width (or negative) gives 0
  /// for shl and logical shr, and the sign fill (0 or -1) for arithmetic shr. MLIR's shli/shrsi/shrui give poison
  /// there; memjit pays one compare and select (often folded) instead.
  Value shl(const Value& a, const Value& n, Loc loc = Loc::current());
  Value shr(const Value& a, const Value& n, Loc loc = Loc::current());    ///< arithmetic, logical for ui
  Value shrsi(const Value& a, const Value& n, Loc loc = Loc::current());  ///< arithmetic
  Value shrui(const Value& a, const Value& n, Loc loc = Loc::current());  ///< logical
  /// Rotations by `n` modulo the width (llvm.fshl/fshr).
  Value rotl(const Value& a, const Value& n, Loc loc = Loc::current());
  Value rotr(const Value& a, const Value& n, Loc loc = Loc::current());
  /// Population count, leading and trailing zeros (the width for 0).
  Value ctpop(const Value& a, Loc loc = Loc::current());
  Value ctlz(const Value& a, Loc loc = Loc::current());
  Value cttz(const Value& a, Loc loc = Loc::current());

  // --- math (builder_math.cpp) ---
  // Float operands of one type unless noted. f16 and bf16 are computed in f32 and rounded (fma in f64), as MLIR's
  // legalisation does for targets without native half-precision math. Functions LLVM 19 has no intrinsic for call
  // libm (as MLIR's math-to-libm).
  Value sqrt(const Value& a, Loc loc = Loc::current());
  Value rsqrt(const Value& a, Loc loc = Loc::current());  ///< 1 / sqrt(a)
  Value cbrt(const Value& a, Loc loc = Loc::current());
  Value exp(const Value& a, Loc loc = Loc::current());
  Value exp2(const Value& a, Loc loc = Loc::current());
  Value expm1(const Value& a, Loc loc = Loc::current());
  Value log(const Value& a, Loc loc = Loc::current());
  Value log2(const Value& a, Loc loc = Loc::current());
  Value log10(const Value& a, Loc loc = Loc::current());
  Value log1p(const Value& a, Loc loc = Loc::current());
  Value pow(const Value& a, const Value& b, Loc loc = Loc::current());
  /// a^n with n an i32 or si32 (math.fpowi / llvm.powi; the multiplication order is unspecified, so results may
  /// differ from pow in the last bits).
  Value powi(const Value& a, const Value& n, Loc loc = Loc::current());
  Value powi(const Value& a, std::int32_t n, Loc loc = Loc::current());
  Value sin(const Value& a, Loc loc = Loc::current());
  Value cos(const Value& a, Loc loc = Loc::current());
  Value tan(const Value& a, Loc loc = Loc::current());
  Value asin(const Value& a, Loc loc = Loc::current());
  Value acos(const Value& a, Loc loc = Loc::current());
  Value atan(const Value& a, Loc loc = Loc::current());
  Value atan2(const Value& y, const Value& x, Loc loc = Loc::current());
  Value sinh(const Value& a, Loc loc = Loc::current());
  Value cosh(const Value& a, Loc loc = Loc::current());
  Value tanh(const Value& a, Loc loc = Loc::current());
  Value erf(const Value& a, Loc loc = Loc::current());
  Value erfc(const Value& a, Loc loc = Loc::current());
  Value floor(const Value& a, Loc loc = Loc::current());
  Value ceil(const Value& a, Loc loc = Loc::current());
  Value round(const Value& a, Loc loc = Loc::current());      ///< half away from zero (math.round)
  Value roundeven(const Value& a, Loc loc = Loc::current());  ///< half to even (math.roundeven)
  Value trunc(const Value& a, Loc loc = Loc::current());
  Value copysign(const Value& magnitude, const Value& sign, Loc loc = Loc::current());
  Value fma(const Value& a, const Value& b, const Value& c, Loc loc = Loc::current());
  /// |a| for floats and signed/signless integers (INT_MIN stays INT_MIN); ui unchanged.
  Value abs(const Value& a, Loc loc = Loc::current());
  /// NaN-propagating minimum/maximum, -0 < +0 (arith.minimumf/maximumf).
  Value minimumf(const Value& a, const Value& b, Loc loc = Loc::current());
  Value maximumf(const Value& a, const Value& b, Loc loc = Loc::current());
  /// NaN-ignoring minimum/maximum: a NaN operand yields the other one; for +0 and -0 either may be returned
  /// (arith.minnumf/maxnumf).
  Value minnumf(const Value& a, const Value& b, Loc loc = Loc::current());
  Value maxnumf(const Value& a, const Value& b, Loc loc = Loc::current());
  /// For floats minnumf/maxnumf; for integers signed or unsigned from the type (arith.minsi/minui/maxsi/maxui).
  Value min(const Value& a, const Value& b, Loc loc = Loc::current());
  Value max(const Value& a, const Value& b, Loc loc = Loc::current());

  // --- floating-point semantics (builder.cpp) ---
  FastMath fastMath() const noexcept;  ///< the flags of floating-point operations built from here on
  /// Builds `body` with `flags` (replacing, not adding to, the current ones: pass `b.fastMath() | FastMath::Reassoc`
  /// to add), then restores. A one-operation region gives one operation flags.
  void withFastMath(FastMath flags, const std::function<void()>& body);

  // --- control flow, calls and return (builder_control.cpp) ---
  /// `for (iv = lb; iv < ub; iv += step)` over index values (step > 0).
  void forLoop(const Value& lb, const Value& ub, const Value& step, const std::function<void(Value)>& body,
               Loc loc = Loc::current());
  void forLoop(const Value& lb, const Value& ub, const Value& step, const LoopOptions& options,
               const std::function<void(Value)>& body, Loc loc = Loc::current());
  /// The same with loop-carried values: `body` gets the current values and returns the next ones; the final values
  /// are returned. Unranked memrefs cannot be carried (their descriptors live in the iteration's stack scope).
  std::vector<Value> forLoop(const Value& lb, const Value& ub, const Value& step, std::vector<Value> init,
                             const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& body,
                             Loc loc = Loc::current());
  std::vector<Value> forLoop(const Value& lb, const Value& ub, const Value& step, std::vector<Value> init,
                             const LoopOptions& options,
                             const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& body,
                             Loc loc = Loc::current());
  void ifThen(const Value& cond, const std::function<void()>& then, Loc loc = Loc::current());
  /// Both branches return values of the same types; those are the results.
  std::vector<Value> ifElse(const Value& cond, const std::function<std::vector<Value>()>& then,
                            const std::function<std::vector<Value>()>& otherwise, Loc loc = Loc::current());
  /// Calls a function declared in this module (defined or external).
  std::vector<Value> call(std::string_view name, const std::vector<Value>& args, Loc loc = Loc::current());
  /// Calls a C function `name` over scalars, declaring it on first use.
  Value callC(std::string_view name, std::optional<ElementType> result, const std::vector<Value>& args,
              Loc loc = Loc::current());
  /// Returns `values` (one per result); only at the function's top level.
  void ret(const std::vector<Value>& values = {}, Loc loc = Loc::current());

  // --- parallel loops (builder_parallel.cpp) ---
  // `for (iv = lb; iv < ub; iv += step)` with iterations spread over the process's thread pool (scf.parallel). The
  // body is built with this builder as for forLoop and may use any value of the function; it is outlined into a
  // private function called through memjit_parallel_for (memjit::runtime), so its iterations must be independent.
  // step must be positive.
  void parallelFor(const Value& lb, const Value& ub, const Value& step, const ParallelOptions& options,
                   const std::function<void(Value)>& body, Loc loc = Loc::current());
  /// N-D form over nested ranges (dim 0 outermost): the iteration space is flattened for scheduling and each chunk
  /// walks its rows with an inner serial loop over the last dim, so that loop still vectorises.
  void parallelFor(const std::vector<Value>& lbs, const std::vector<Value>& ubs, const std::vector<Value>& steps,
                   const ParallelOptions& options, const std::function<void(const std::vector<Value>&)>& body,
                   Loc loc = Loc::current());
  /// A parallel loop whose body returns one contribution per reduction (scf.parallel + scf.reduce); returns the
  /// reduced values.
  std::vector<Value> parallelReduce(const Value& lb, const Value& ub, const Value& step, const ParallelOptions& options,
                                    const std::vector<Reduction>& reductions,
                                    const std::function<std::vector<Value>(Value)>& body, Loc loc = Loc::current());
  /// A parallel loop reducing into arrays (see ArrayReduction): `body` gets the iteration's index and one private
  /// memref per reduction (identity layout, the accumulator's shape and element type), which it reads and writes
  /// with loads and stores; the accumulators hold the result when the loop ends.
  void parallelReduce(const Value& lb, const Value& ub, const Value& step, const ParallelOptions& options,
                      const std::vector<ArrayReduction>& arrays,
                      const std::function<void(Value, const std::vector<Value>&)>& body, Loc loc = Loc::current());

  // --- memrefs (builder_memref.cpp) ---
  /// Loads `m[indices]` (index-typed, one per dim) through the aligned pointer.
  Value load(const Value& m, const std::vector<Value>& indices, Loc loc = Loc::current());
  void store(const Value& v, const Value& m, const std::vector<Value>& indices, StoreOptions options = {},
             Loc loc = Loc::current());
  /// Size of dim `i` (constant for static dims); works on unranked memrefs too.
  Value dim(const Value& m, std::size_t i, Loc loc = Loc::current());
  Value rank(const Value& m, Loc loc = Loc::current());
  /// `memref.subview` without rank reduction: same rank, new offset, sizes, strides.
  Value subview(const Value& m, const std::vector<IndexOperand>& offsets, const std::vector<IndexOperand>& sizes,
                const std::vector<IndexOperand>& strides, Loc loc = Loc::current());
  /// `memref.reinterpret_cast` to `type` over the same buffer (ranked or unranked source).
  Value reinterpretCast(const Value& m, const MemRefType& type, IndexOperand offset,
                        const std::vector<IndexOperand>& sizes, const std::vector<IndexOperand>& strides,
                        Loc loc = Loc::current());
  /// `memref.cast` to `type`: the same buffer and descriptor under a type of the same element, memory space and
  /// rank whose every size, offset and stride equals `m`'s or is dynamic in one of the two (an identity layout is
  /// offset 0 and row-major strides). Where `type` promises what `m`'s type leaves open (a static size, offset or
  /// stride, the identity layout), a memref that breaks the promise is undefined, and in checked mode an error.
  /// `call` casts memref arguments this way by itself.
  Value memrefCast(const Value& m, const MemRefType& type, Loc loc = Loc::current());
  /// A fresh identity-layout buffer, its aligned pointer rounded up to `alignment` bytes. One size per dynamic dim.
  /// One that escapes the function (returned, stored, passed to an unknown call) comes from malloc and
  /// `free(allocated)` releases it; one that does not is a temporary, released when the function returns: a stack
  /// slot when small and static, else a block of the thread's arena (docs/runtime.md, "Temporaries";
  /// FunctionOptions::temporariesOnHeap keeps malloc). `dealloc` releases either.
  Value alloc(const MemRefType& type, const std::vector<Value>& dynamicSizes = {}, unsigned alignment = 64,
              Loc loc = Loc::current());
  void dealloc(const Value& m, Loc loc = Loc::current());
  /// Ranked to unranked; the descriptor is stored on the stack (scoped per loop iteration).
  Value castToUnranked(const Value& m, Loc loc = Loc::current());
  /// Unranked to ranked `type` (the caller vouches for the rank).
  Value castToRanked(const Value& m, const MemRefType& type, Loc loc = Loc::current());

  // --- atomics (builder_atomic.cpp) ---
  // Atomic updates of one element of a ranked memref, addressed as load/store address it (checked mode checks the
  // indices); operands are scalars of the element's type. Each returns the element's value before the update.
  /// `m[indices] = kind(m[indices], v)` atomically (memref.atomic_rmw): one `atomicrmw` for the kinds LLVM has,
  /// a compare-exchange loop for Muli, Mulf and the float min/max kinds (as MLIR expands them).
  Value atomicRMW(AtomicKind kind, const Value& v, const Value& m, const std::vector<Value>& indices,
                  AtomicOrdering ordering = AtomicOrdering::AcqRel, Loc loc = Loc::current());
  /// `m[indices] = body(m[indices])` atomically (memref.generic_atomic_rmw): a compare-exchange loop that runs
  /// `body` (built with this builder; it may run more than once) on the current value until no other thread changed
  /// the element in between.
  Value genericAtomicRMW(const Value& m, const std::vector<Value>& indices, const std::function<Value(Value)>& body,
                         AtomicOrdering ordering = AtomicOrdering::AcqRel, Loc loc = Loc::current());
  /// If `m[indices]` equals `expected` (bit for bit, for floats too: NaN equals the same NaN, -0 is not +0), stores
  /// `desired`. Returns the value found and whether it was stored (i1), as C++'s compare_exchange_strong; a failed
  /// exchange reads with `ordering`'s acquire part.
  std::pair<Value, Value> atomicCompareExchange(const Value& m, const std::vector<Value>& indices,
                                                const Value& expected, const Value& desired,
                                                AtomicOrdering ordering = AtomicOrdering::AcqRel,
                                                Loc loc = Loc::current());

  // --- vectors (builder_vector.cpp) ---
  // MLIR's `vector` dialect over one-dimensional vectors (vector_type.h) of integer, index or float elements. Every
  // scalar operation above also takes vectors of one shape and works lane by lane (arithmetic, math, bit
  // operations, compares giving vector<Nxi1>, select with an i1 or a per-lane condition, casts, fma); operators
  // and literals too (`v * 2.0f` splats the literal). Loop-carried values and ifElse results may be vectors;
  // memref indices, loop bounds, calls and returns may not.
  /// Lanes of `t` in one of the host's vector registers (16 f32 with AVX-512, 8 with AVX2, 4 with SSE or NEON).
  /// See vector_target.h.
  std::uint32_t nativeLanes(ElementType t) const;
  /// `scalar` in every lane (vector.broadcast / vector.splat).
  Value splat(const Value& scalar, std::uint32_t lanes, Loc loc = Loc::current());
  /// A vector of the given lanes, each converted exactly as constant() does (arith.constant dense<[...]>).
  template <Literal T>
  Value constantVector(ElementType t, const std::vector<T>& lanes, Loc loc = Loc::current()) {
    std::vector<Value> parts;
    for (T v : lanes) parts.push_back(constant(t, v, loc));
    return fromElements(parts, loc);
  }
  /// The vector of the given scalars of one type (vector.from_elements).
  Value fromElements(const std::vector<Value>& scalars, Loc loc = Loc::current());
  /// [0, 1, ..., lanes - 1] of integer or index type `t` (vector.step).
  Value laneIndices(ElementType t, std::uint32_t lanes, Loc loc = Loc::current());
  /// Lane `lane` of `v` (vector.extract); the Value form takes an index and gives poison past the last lane
  /// (checked mode stops there instead).
  Value extract(const Value& v, std::uint32_t lane, Loc loc = Loc::current());
  Value extract(const Value& v, const Value& lane, Loc loc = Loc::current());
  /// `v` with lane `lane` replaced by `scalar` (vector.insert).
  Value insert(const Value& v, const Value& scalar, std::uint32_t lane, Loc loc = Loc::current());
  Value insert(const Value& v, const Value& scalar, const Value& lane, Loc loc = Loc::current());
  /// Combining all lanes into one scalar (vector.reduction <kind>). Float Add and Mul reduce in lane order unless
  /// the fast-math flags include Reassoc; float Min/Max ignore NaN as minnumf/maxnumf, Minimumf/Maximumf propagate
  /// it; integer Min/Max are signed or unsigned by type; And, Or and Xor take integers only.
  enum class VectorReduction { Add, Mul, Min, Max, Minimumf, Maximumf, And, Or, Xor };
  Value reduce(VectorReduction kind, const Value& v, Loc loc = Loc::current());
  /// Lanes picked from `a` (0 .. n-1) and `b` (n .. 2n-1) by the static `mask`; the result has mask.size() lanes
  /// (vector.shuffle).
  Value shuffle(const Value& a, const Value& b, const std::vector<std::int32_t>& mask, Loc loc = Loc::current());
  /// a0 b0 a1 b1 ... (vector.interleave); deinterleave is its inverse (vector.deinterleave): the even lanes and the
  /// odd lanes.
  Value interleave(const Value& a, const Value& b, Loc loc = Loc::current());
  std::pair<Value, Value> deinterleave(const Value& v, Loc loc = Loc::current());
  /// vector<Nxi1> with lanes [0, n) set (vector.create_mask; n is an index, clamped to [0, lanes]); the tail mask
  /// of a loop over n elements.
  Value createMask(std::uint32_t lanes, const Value& n, Loc loc = Loc::current());

  // --- dot-product accumulation (builder_dot.cpp) ---
  /// Lane j of `acc` plus the products of the lanes of `a` and `b` in group j (MLIR's x86vector.avx512.dot and
  /// x86vector.avx.dot.i8 family; Intel's VNNI and AVX512_BF16). The kind comes from the element types:
  /// - acc vector<Nxi32>, a vector<4Nxui8>, b vector<4Nxsi8> (or i8): acc[j] + sum over k < 4 of
  ///   a[4j+k] * b[4j+k], zero- and sign-extended, wrapping modulo 2^32 (vpdpbusd; not the saturating vpdpbusds);
  /// - acc vector<Nxi32>, a and b vector<2Nxi16> (or si16): acc[j] + a[2j] * b[2j] + a[2j+1] * b[2j+1], signed,
  ///   wrapping (vpdpwssd);
  /// - acc vector<Nxf32>, a and b vector<2Nxbf16>: vdpbf16ps, which is not two fmas: bf16 denormals (and a
  ///   denormal acc) are read as zero of their sign, then t = fma(a[2j+1], b[2j+1], acc[j]) and
  ///   fma(a[2j], b[2j], t), each rounded to nearest even once and a denormal result flushed to zero of its sign;
  ///   a NaN result is a's NaN, else b's, else t's, quieted, else the default NaN 0xffc00000.
  /// (si32 accumulators are taken too.) Where the target has the instruction (VNNI: avx512vnni for 16 lanes,
  /// avxvnni or avx512vnni + avx512vl for 4 and 8; avx512bf16 likewise) the call is that instruction, elsewhere a
  /// portable sequence giving the same bits.
  Value dot(const Value& acc, const Value& a, const Value& b, Loc loc = Loc::current());

  // --- vector memory (builder_vector_memory.cpp) ---
  // A ranked memref addressed at `indices` (one index per dim); lanes move along its last dim. Checked mode checks
  // every lane that is accessed (masked-off lanes are not).
  /// `lanes` consecutive elements (vector.load). The last dim's stride must be 1 in the type (as MLIR requires);
  /// use transferRead otherwise.
  Value vectorLoad(const Value& m, const std::vector<Value>& indices, std::uint32_t lanes,
                   VectorMemoryOptions options = {}, Loc loc = Loc::current());
  void vectorStore(const Value& v, const Value& m, const std::vector<Value>& indices, VectorMemoryOptions options = {},
                   Loc loc = Loc::current());
  /// Lanes where `mask` (vector<Nxi1>) is set are loaded, the others taken from `passThru` (vector.maskedload);
  /// nothing is read at masked-off lanes.
  Value maskedLoad(const Value& m, const std::vector<Value>& indices, const Value& mask, const Value& passThru,
                   VectorMemoryOptions options = {}, Loc loc = Loc::current());
  /// Stores the lanes where `mask` is set (vector.maskedstore).
  void maskedStore(const Value& v, const Value& m, const std::vector<Value>& indices, const Value& mask,
                   VectorMemoryOptions options = {}, Loc loc = Loc::current());
  /// Lane k reads m[indices..., last + offsets[k]] where `mask` is set, else passThru[k] (vector.gather);
  /// `offsets` is a vector of integer or index type, in elements of the last dim (scaled by its stride).
  Value gather(const Value& m, const std::vector<Value>& indices, const Value& offsets, const Value& mask,
               const Value& passThru, Loc loc = Loc::current());
  /// Lane k of `v` to m[indices..., last + offsets[k]] where `mask` is set (vector.scatter); with repeated offsets
  /// the highest lane wins.
  void scatter(const Value& v, const Value& m, const std::vector<Value>& indices, const Value& offsets,
               const Value& mask, Loc loc = Loc::current());
  /// `lanes` elements along the last dim from `indices`, at any stride; lanes past the dim's end read `padding`
  /// (vector.transfer_read with the minor identity map, not in_bounds): the tail of a row needs no mask.
  Value transferRead(const Value& m, const std::vector<Value>& indices, std::uint32_t lanes, const Value& padding,
                     Loc loc = Loc::current());
  /// Writes the lanes that fall within the last dim (vector.transfer_write).
  void transferWrite(const Value& v, const Value& m, const std::vector<Value>& indices, Loc loc = Loc::current());

  // --- debugging and the escape hatch to LLVM (builder.cpp) ---
  /// With FunctionOptions::debugInfo, `v` is the debug variable `name` from here on (`p acc` in gdb): a memref
  /// shows its descriptor's fields, a vector its lanes. Without debug info it does nothing.
  void name(const Value& v, std::string_view name, Loc loc = Loc::current());
  /// The IRBuilder; with debug info, what is built through it next is on the caller's line.
  llvm::IRBuilderBase& ir(Loc loc = Loc::current());
  llvm::Function* function();
  Module& module() noexcept;
  /// Wraps an LLVM value built through ir() as a Value of type `t` (checked).
  Value wrap(llvm::Value* v, const Type& t);
  Value wrap(llvm::Value* v, const VectorType& t);
  const LoweredFunction& lowered() const noexcept;

 private:
  Value constantFromInteger(ElementType t, std::uint64_t bits, bool negative, Loc loc);
  Value constantFromFloat(ElementType t, double v, bool exact, Loc loc);
  std::optional<ElementType> literalType(const Value& like, Loc loc);
  // Removes the function from the module; returns the functions still calling it.
  std::vector<std::string> discard();
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend struct BuilderOps;
};

// --- operators (builder.cpp) ---

/// The left operand of an operator, with where the operator was written (see "Source locations" above). Made
/// implicitly from a Value; it refers to that Value, so it lives only as long as the expression.
struct Located {
  Located(const Value& v, Loc where = Loc::current()) noexcept : value(v), loc(where) {}
  const Value& value;
  Loc loc;
};

/// Operators on values of one builder: `a + b` is `a.builder()->add(a, b)`. Comparisons give i1 (see
/// CmpPredicate); `>>` is shr (by signedness). Either operand may be a C++ literal, converted with constantLike.
Value operator+(Located a, const Value& b);
Value operator-(Located a, const Value& b);
Value operator*(Located a, const Value& b);
Value operator/(Located a, const Value& b);
Value operator%(Located a, const Value& b);
Value operator&(Located a, const Value& b);
Value operator|(Located a, const Value& b);
Value operator^(Located a, const Value& b);
Value operator<<(Located a, const Value& b);
Value operator>>(Located a, const Value& b);
Value operator<(Located a, const Value& b);
Value operator<=(Located a, const Value& b);
Value operator>(Located a, const Value& b);
Value operator>=(Located a, const Value& b);
Value operator==(Located a, Located b);
Value operator!=(Located a, Located b);
Value operator-(Located a);
Value operator~(Located a);

namespace detail {
template <Literal T>
Value literalLike(const Value& like, T v, const Loc& loc) {
  return like.builder() ? like.builder()->constantLike(like, v, loc) : Value();
}
}  // namespace detail

#define MEMJIT_VALUE_LITERAL_OPERATOR(op)                         \
  template <Literal T>                                            \
  Value operator op(Located a, T b) {                             \
    return a op detail::literalLike(a.value, b, a.loc);           \
  }                                                               \
  template <Literal T>                                            \
  Value operator op(T a, Located b) {                             \
    const Value literal = detail::literalLike(b.value, a, b.loc); \
    return Located(literal, b.loc) op b.value;                    \
  }
MEMJIT_VALUE_LITERAL_OPERATOR(+)
MEMJIT_VALUE_LITERAL_OPERATOR(-)
MEMJIT_VALUE_LITERAL_OPERATOR(*)
MEMJIT_VALUE_LITERAL_OPERATOR(/)
MEMJIT_VALUE_LITERAL_OPERATOR(%)
MEMJIT_VALUE_LITERAL_OPERATOR(&)
MEMJIT_VALUE_LITERAL_OPERATOR(|)
MEMJIT_VALUE_LITERAL_OPERATOR(^)
MEMJIT_VALUE_LITERAL_OPERATOR(<<)
MEMJIT_VALUE_LITERAL_OPERATOR(>>)
MEMJIT_VALUE_LITERAL_OPERATOR(<)
MEMJIT_VALUE_LITERAL_OPERATOR(<=)
MEMJIT_VALUE_LITERAL_OPERATOR(>)
MEMJIT_VALUE_LITERAL_OPERATOR(>=)
MEMJIT_VALUE_LITERAL_OPERATOR(==)
MEMJIT_VALUE_LITERAL_OPERATOR(!=)
#undef MEMJIT_VALUE_LITERAL_OPERATOR

}  // namespace memjit::codegen
