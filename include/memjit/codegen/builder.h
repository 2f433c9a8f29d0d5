// The kernel builder: write a memjit function's body in C++ the way a
// numerical programmer thinks (constants, arithmetic, loops, memref loads and
// stores), emitting LLVM IR that follows MLIR's memref lowering.
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
// Errors are sticky: the first misuse (wrong type, wrong index count, a value
// of another function) is recorded with the operation and the types named,
// later operations do nothing, and finish() returns it. finish() also runs
// llvm::verifyFunction, so no invalid function leaves the builder.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "memjit/codegen/function.h"
#include "memjit/codegen/module.h"
#include "memjit/error.h"
#include "memjit/types.h"

namespace llvm {
class Function;
class IRBuilderBase;
class StoreInst;
class Value;
}  // namespace llvm

namespace memjit::codegen {

class FunctionBuilder;
struct BuilderOps;

/// A value of the function being built: a scalar, a ranked memref (its
/// descriptor) or an unranked memref (`{rank, ptr}`). Default-constructed or
/// produced after an error, it is invalid.
class Value {
 public:
  Value() = default;
  bool valid() const noexcept { return value_ != nullptr; }
  const Type& type() const noexcept { return type_; }
  llvm::Value* llvm() const noexcept { return value_; }
  FunctionBuilder* builder() const noexcept { return builder_; }

 private:
  friend class FunctionBuilder;
  friend struct BuilderOps;
  Value(FunctionBuilder* b, llvm::Value* v, Type t) : builder_(b), value_(v), type_(std::move(t)) {}
  FunctionBuilder* builder_ = nullptr;
  llvm::Value* value_ = nullptr;
  Type type_ = ElementType::I1;
};

/// Arithmetic on values of one builder (the same as b.add(x, y) and so on).
Value operator+(const Value& a, const Value& b);
Value operator-(const Value& a, const Value& b);
Value operator*(const Value& a, const Value& b);
Value operator/(const Value& a, const Value& b);

/// Comparison predicates; signedness and float ordering come from the type
/// (floats compare ordered, except Ne which is true for NaN, as in C).
enum class CmpPredicate { Eq, Ne, Lt, Le, Gt, Ge };

/// A static or dynamic index (MLIR's OpFoldResult) for subviews and casts.
struct IndexOperand {
  IndexOperand(std::int64_t v) : value(v) {}
  IndexOperand(int v) : value(static_cast<std::int64_t>(v)) {}
  IndexOperand(Value v) : value(std::move(v)) {}
  std::variant<std::int64_t, Value> value;
};

/// Options of a store.
struct StoreOptions {
  /// Streaming store: bypass caches for data not read soon. Emitted as a tag
  /// (see metadata_symbols.h) that memjit's pipeline turns into `!nontemporal`
  /// after vectorisation, so loops of such stores still vectorise.
  bool nontemporal = false;
};

/// Marks a store built through FunctionBuilder::ir() as streaming, exactly as
/// store(..., {.nontemporal = true}) marks its own.
void markNontemporal(llvm::StoreInst* store);

// --- parallel loops (see FunctionBuilder::parallelFor) ---

/// How a parallel loop's iterations are dealt to threads.
enum class ParallelSchedule {
  Static,   ///< fixed chunks dealt in advance (one block per thread without a chunk)
  Dynamic,  ///< threads take the next chunk when done (for uneven iterations)
};

/// Options of a parallel loop.
struct ParallelOptions {
  /// Iterations per chunk; 0 lets the scheduler choose (static: one block per thread).
  std::int64_t chunk = 0;
  ParallelSchedule schedule = ParallelSchedule::Static;
  /// At most this many threads for this loop; 0: the process's thread count.
  std::int32_t maxThreads = 0;
};

/// A value reduced across a parallel loop's iterations: `init` combined with
/// every iteration's contribution by an associative (and commutative)
/// combiner. Chunks start from the combiner's identity and their partial
/// results are combined in whatever order threads finish, so float results
/// may differ from the serial order in the last bits; integer results are exact.
struct Reduction {
  enum class Kind { Sum, Product, Min, Max, Custom };
  Kind kind = Kind::Sum;
  Value init;
  /// Custom only: the combiner's identity and the combiner itself (built with
  /// the same builder, from its two operands).
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

class FunctionBuilder {
 public:
  /// Declares `name` in `module` (see defineFunction) and opens its body.
  /// Declaration errors are reported by error() and finish().
  FunctionBuilder(Module& module, std::string name, const FunctionType& type,
                  const FunctionOptions& options = {});
  ~FunctionBuilder();
  FunctionBuilder(const FunctionBuilder&) = delete;
  FunctionBuilder& operator=(const FunctionBuilder&) = delete;

  /// The first error so far (success when none).
  const Error& error() const noexcept;
  /// Closes the body (adding `ret void` when there are no results and no
  /// ret yet), verifies the function and returns the first error.
  Error finish();

  // --- arguments and constants ---
  /// Input #i in its in-function form (descriptor for memrefs).
  Value arg(std::size_t i);
  /// A constant of scalar type `t` (integers take the integral part).
  Value constant(ElementType t, double v);
  Value index(std::int64_t v);
  Value i32(std::int32_t v);
  Value i64(std::int64_t v);
  Value f32(float v);
  Value f64(double v);

  // --- arithmetic (operands of one scalar type) ---
  Value add(const Value& a, const Value& b);
  Value sub(const Value& a, const Value& b);
  Value mul(const Value& a, const Value& b);
  /// Signed for signless/si integers and index, unsigned for ui.
  Value div(const Value& a, const Value& b);
  Value rem(const Value& a, const Value& b);
  Value neg(const Value& a);
  Value cmp(CmpPredicate p, const Value& a, const Value& b);
  /// `c ? a : b` with c of type i1.
  Value select(const Value& c, const Value& a, const Value& b);
  /// Numeric conversion (ext/trunc, int<->float, float ext/trunc, ptr<->int).
  Value cast(const Value& v, ElementType to);

  // --- math ---
  Value sqrt(const Value& a);
  Value exp(const Value& a);
  Value log(const Value& a);
  Value tanh(const Value& a);
  Value fma(const Value& a, const Value& b, const Value& c);
  Value min(const Value& a, const Value& b);
  Value max(const Value& a, const Value& b);
  Value abs(const Value& a);

  // --- control flow ---
  /// `for (iv = lb; iv < ub; iv += step)` over index values (step > 0).
  void forLoop(const Value& lb, const Value& ub, const Value& step, const std::function<void(Value)>& body);
  /// The same with loop-carried values: `body` gets the current values and
  /// returns the next ones; the final values are returned. Unranked memrefs
  /// cannot be carried (their descriptors live in the iteration's stack scope).
  std::vector<Value> forLoop(const Value& lb, const Value& ub, const Value& step, std::vector<Value> init,
                             const std::function<std::vector<Value>(Value, const std::vector<Value>&)>& body);
  // --- parallel loops (builder_parallel.cpp) ---
  /// `for (iv = lb; iv < ub; iv += step)` with iterations spread over the
  /// process's thread pool (scf.parallel). The body is built with this builder
  /// as for forLoop and may use any value of the function; it is outlined into
  /// a private function called through memjit_parallel_for (memjit::runtime),
  /// so its iterations must be independent. step must be positive.
  void parallelFor(const Value& lb, const Value& ub, const Value& step, const ParallelOptions& options,
                   const std::function<void(Value)>& body);
  /// N-D form over nested ranges (dim 0 outermost): the iteration space is
  /// flattened for scheduling and each chunk walks its rows with an inner
  /// serial loop over the last dim, so that loop still vectorises.
  void parallelFor(const std::vector<Value>& lbs, const std::vector<Value>& ubs, const std::vector<Value>& steps,
                   const ParallelOptions& options, const std::function<void(const std::vector<Value>&)>& body);
  /// A parallel loop whose body returns one contribution per reduction
  /// (scf.parallel + scf.reduce); returns the reduced values.
  std::vector<Value> parallelReduce(const Value& lb, const Value& ub, const Value& step,
                                    const ParallelOptions& options, const std::vector<Reduction>& reductions,
                                    const std::function<std::vector<Value>(Value)>& body);

  void ifThen(const Value& cond, const std::function<void()>& then);
  /// Both branches return values of the same types; those are the results.
  std::vector<Value> ifElse(const Value& cond, const std::function<std::vector<Value>()>& then,
                            const std::function<std::vector<Value>()>& otherwise);

  // --- memrefs ---
  /// Loads `m[indices]` (index-typed, one per dim) through the aligned pointer.
  Value load(const Value& m, const std::vector<Value>& indices);
  void store(const Value& v, const Value& m, const std::vector<Value>& indices, StoreOptions options = {});
  /// Size of dim `i` (constant for static dims); works on unranked memrefs too.
  Value dim(const Value& m, std::size_t i);
  Value rank(const Value& m);
  /// `memref.subview` without rank reduction: same rank, new offset, sizes, strides.
  Value subview(const Value& m, const std::vector<IndexOperand>& offsets, const std::vector<IndexOperand>& sizes,
                const std::vector<IndexOperand>& strides);
  /// `memref.reinterpret_cast` to `type` over the same buffer (ranked or unranked source).
  Value reinterpretCast(const Value& m, const MemRefType& type, IndexOperand offset,
                        const std::vector<IndexOperand>& sizes, const std::vector<IndexOperand>& strides);
  /// A fresh identity-layout buffer from malloc, its aligned pointer rounded
  /// up to `alignment` bytes; `free(allocated)` releases it. One size per dynamic dim.
  Value alloc(const MemRefType& type, const std::vector<Value>& dynamicSizes = {}, unsigned alignment = 64);
  void dealloc(const Value& m);
  /// Ranked to unranked; the descriptor is stored on the stack (scoped per loop iteration).
  Value castToUnranked(const Value& m);
  /// Unranked to ranked `type` (the caller vouches for the rank).
  Value castToRanked(const Value& m, const MemRefType& type);

  // --- calls and return ---
  /// Calls a function declared in this module (defined or external).
  std::vector<Value> call(std::string_view name, const std::vector<Value>& args);
  /// Calls a C function `name` over scalars, declaring it on first use.
  Value callC(std::string_view name, std::optional<ElementType> result, const std::vector<Value>& args);
  /// Returns `values` (one per result); only at the function's top level.
  void ret(const std::vector<Value>& values = {});

  // --- escape hatch ---
  llvm::IRBuilderBase& ir();
  llvm::Function* function();
  Module& module() noexcept;
  /// Wraps an LLVM value built through ir() as a Value of type `t` (checked).
  Value wrap(llvm::Value* v, const Type& t);
  const LoweredFunction& lowered() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend struct BuilderOps;
};

}  // namespace memjit::codegen
