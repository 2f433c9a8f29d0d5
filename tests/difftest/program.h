// The difftest's program description: a small IR of its own, independent of
// the builder, that the generator writes, the reference interpreter runs, the
// lowering turns into FunctionBuilder calls and the reducer shrinks.
//
// A program is one function with a fixed signature (kSignature), so every
// invoker can call it from compiled C++: inputs come from `io[0..inputs)` and
// the scalar arguments, outputs go to `io[inputs..)`, the return value and the
// two strided memrefs, whose every byte (inside the views or not) is compared.
// Values are numbered; value ids 0..kFixedValues-1 are the arguments.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memjit/types.h"

namespace memjit::difftest {

using ElementType = memjit::ElementType;

inline constexpr const char* kSignature =
    "(memref<?xi64>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xi32, strided<[?, ?], offset: ?>>, "
    "f16, bf16, i8, f64) -> i64";
/// Value ids of the arguments.
enum FixedValue : int { kIo = 0, kFm = 1, kIm = 2, kH = 3, kG = 4, kC = 5, kD = 6, kFixedValues = 7 };

enum class Op : std::uint8_t {
  Const,  // imm: the bits
  Add, Sub, Mul, Div, Rem, DivSI, DivUI, RemSI, RemUI, CeilDivSI, CeilDivUI, FloorDivSI, MulHi, Neg,
  And, Or, Xor, Not, Shl, Shr, ShrSI, ShrUI, RotL, RotR, CtPop, CtLz, CtTz,
  Min, Max, MinNumF, MaxNumF, MinimumF, MaximumF, Abs,
  Cmp,     // imm: the CmpPredicate (Eq, Ne, Lt, Le, Gt, Ge)
  Select,  // cond, a, b
  Cast, Bitcast,  // to the statement's type
  Sqrt, Rsqrt, Cbrt, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Pow, Powi, Sin, Cos, Tan, Asin, Acos, Atan, Atan2,
  Sinh, Cosh, Tanh, Erf, Erfc, Floor, Ceil, Round, RoundEven, Trunc, CopySign, Fma,
  Dim,   // memref; imm: the dim
  Rank,  // memref (its rank, read from the unranked descriptor on every other use)
  Load,  // memref, indices...
  Count
};
const char* opName(Op op);
/// exp, sin, pow, ...: compared within an ulp bound, not bit for bit.
bool isTranscendental(Op op);

enum class StmtKind : std::uint8_t {
  Assign,   // results[0] = op(args)
  For,      // args: lb, ub, step, inits...; blocks[0] params: iv, carried...; results: final carried
  If,       // args: cond; blocks[0] then, blocks[1] else (no params), results
  Store,    // args: value, memref, indices...
  Subview,  // args: memref; results[0] the view; offsets/sizes/strides static
  MemrefCast,  // args: memref; results[0] the same view under another type (memref.cast): sizes[d] its static
               // size or -1 (dynamic), strides[d] and offsets[0] static or kAnyStride; imm bit 0: the identity
               // layout; bit 1: through an unranked memref (castToUnranked, then castToRanked to the type)
  Output,   // args: value; imm: the io slot
  ParallelReduce,  // args: lb, ub, step, inits...; blocks[0] params: iv; yields: contributions; results: reduced
                   // reductions: the kinds; imm: chunk | schedule << 32 | deterministic << 33 (no stores inside:
                   // iterations are independent; deterministic ones may reduce f32/f64, their order documented)
  Return,   // args: the i64 value (last statement of the function)
  Atomic,   // args: value, memref, indices...; imm: the Stmt::Atomic kind; results: the old value (none in parallel
            // loops, where it depends on the threads' order; there all atomics of a loop share one commutative kind
            // and nothing reads their memref)
  ArrayReduce,  // args: lb, ub, step, accumulator memref; reductions[0]: the kind; imm as ParallelReduce;
                // blocks[0] params: iv; yields: value, indices... (private[indices] = combine(private[...], value))
  ParallelFor,  // args: lb, ub, step; blocks[0] params: iv; imm: chunk | schedule << 32. Iterations are
                // independent: each stores only to its own row (index iv) of one buffer, which no iteration reads
  Vector,   // op lane by lane on vectors of sizes[0] lanes: args operand-major (operand j of lane k at
            // args[j * lanes + k]), packed with fromElements; results: the result's lanes, extracted
  Call,     // args: the helper's arguments; imm: the helper (Program::helpers); results: its results
  Alloc,    // args: the fill value; results[0]: a fresh rows x cols buffer (sizes[0], sizes[1]), identity layout, of the
            // fill's type, every element the fill (a temporary: it never escapes); imm 1: its sizes are dynamic
  Lanes,    // a vector operation beyond lane by lane (`lanes` below): vectors of sizes[0] lanes built with
            // fromElements from consecutive args, results extracted lane by lane
  CompareExchange,  // args: expected, desired, memref, indices...; results: the old value, stored (i1). Bit for bit:
                    // a NaN equals the same NaN, -0 is not +0 (serial code only: its result depends on the order)
  GenericAtomic,  // args: memref, indices...; blocks[0] params: the element's current value; yields: its new value
                  // (pure: the body may run more than once); results: the old value (serial code only)
  Dealloc,  // args: an Alloc's memref, released (the last statement of the Alloc's block: nothing after it uses it)
};

/// The operation of a Lanes statement (n = sizes[0]; "n x" = n consecutive args, one per lane).
enum class LaneOp : std::uint8_t {
  Splat,          // args: x                               results: n (splat)
  Insert,         // args: n x v, scalar, lane (index)     results: n (insert at a dynamic lane, in range)
  Extract,        // args: n x v, lane (index)             results: 1 (extract at a dynamic lane, in range)
  Reduce,         // args: n x v; kind: VectorReduction    results: 1
  MaskedLoad,     // args: m, row, col, n x mask, n x pass results: n; lanes col+k past the last dim are masked off
  MaskedStore,    // args: m, row, col, n x mask, n x v    (lowered on a reinterpret_cast with the last stride 1)
  Gather,         // args: m, row, col, n x offset (index), n x mask, n x pass   results: n
  Scatter,        // args: m, row, col, n x offset, n x mask, n x v (repeated offsets: the highest lane wins)
  TransferRead,   // args: m, row, col, padding            results: n; lanes past the last dim read the padding
  TransferWrite,  // args: m, row, col, n x v              lanes past the last dim are not written
  VectorLoad,     // args: m, row, col                     results: n (every lane in the dim; unit last stride)
  VectorStore,    // args: m, row, col, n x v              (every lane in the dim; unit last stride)
  Dot,            // args: n x acc, gn x a, gn x b         results: n (dot: g = 4 for u8 x s8, 2 for s16 and bf16);
                  // imm: the DotKind; s.type: the accumulator's (i32 or f32)
  Shuffle,        // args: n x a, n x b; offsets: the mask   results: offsets.size() (lane k: a[m] or b[m - n])
  Interleave,     // args: n x a, n x b                    results: 2n (a0 b0 a1 b1 ...)
  Deinterleave,   // args: n x v (n even)                  results: n/2 even lanes, then n/2 odd lanes
  Step,           // no args (s.type an integer or index)  results: n (lane k is k: vector.step)
};
/// MaskedLoad .. VectorStore: the lane operations that read or write a memref.
inline bool accessesMemory(LaneOp op) { return op >= LaneOp::MaskedLoad && op <= LaneOp::VectorStore; }
/// Dot's operand types: acc i32, a ui8, b si8; acc i32, a and b i16; acc f32, a and b bf16.
enum DotKind : std::uint8_t { kDotU8S8, kDotS16, kDotBF16, kDotKinds };
/// vector.reduction kinds, in FunctionBuilder::VectorReduction's order.
enum class LaneReduction : std::uint8_t { Add, Mul, Min, Max, Minimumf, Maximumf, And, Or, Xor };

struct Block;

/// MemrefCast: a stride or offset the cast's type leaves dynamic.
inline constexpr std::int64_t kAnyStride = INT64_MIN;

struct Stmt {
  StmtKind kind = StmtKind::Assign;
  Op op = Op::Const;
  ElementType type = ElementType::I64;  // of the result (Assign)
  std::uint64_t imm = 0;
  std::vector<int> args;
  std::vector<int> results;
  std::vector<Block> blocks;
  std::vector<std::int64_t> offsets, sizes, strides;  // Subview
  bool literal = false;  // lower the constant operand as a C++ literal (`x + 1`)
  /// Built-in combiners, and custom ones (Reduction::custom with the identity -1, 0, 0); ArrayReduce takes
  /// the first four.
  enum Reduction : std::uint8_t { Sum, Product, Min, Max, CustomAnd, CustomOr, CustomXor };
  std::vector<Reduction> reductions;  // ParallelReduce, ArrayReduce
  enum Atomic : std::uint8_t { AtomicAdd, AtomicAnd, AtomicOr, AtomicXor, AtomicMaxS, AtomicMinS, AtomicMaxU, AtomicMinU,
                               AtomicMul, AtomicAssign, AtomicAddF, AtomicMaximumF, AtomicMinimumF, AtomicMaxNumF,
                               AtomicMinNumF, AtomicKinds };
  static constexpr int kIntegerAtomics = AtomicAssign + 1;  // the first ones; AtomicMul and below commute
  LaneOp lane = LaneOp::Splat;        // Lanes
  LaneReduction laneReduction = LaneReduction::Add;  // Lanes, Reduce
  /// Lanes MaskedLoad/MaskedStore/Gather/Scatter: no in-bounds guard on the lanes (a deliberate trap).
  bool unguarded = false;
};

struct Block {
  std::vector<int> params;
  std::vector<Stmt> stmts;
  std::vector<int> yields;
};

/// A value's static type: a scalar, or a memref (rank > 0) with the static
/// view the generator knows (the harness builds exactly these views).
struct ValueType {
  ElementType elem = ElementType::I64;
  int rank = 0;  // 0: scalar
  std::vector<std::int64_t> sizes, strides;
  std::int64_t offset = 0;
};

// Bits of a value of a type: the low widthOf(t) bits of a uint64_t.
inline unsigned widthOf(ElementType t) { return t == ElementType::Index ? 64 : bitWidth(t); }
inline std::uint64_t maskOf(unsigned w) { return w >= 64 ? ~0ULL : (1ULL << w) - 1; }
inline std::int64_t signExtend(std::uint64_t bits, unsigned w) {
  if (w >= 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t s = 1ULL << (w - 1);
  return static_cast<std::int64_t>(((bits & maskOf(w)) ^ s) - s);
}
/// i1, i8, ..., i64: what a float of that width bitcasts to.
inline ElementType signlessOfWidth(unsigned w) {
  switch (w) {
    case 1: return ElementType::I1;
    case 8: return ElementType::I8;
    case 16: return ElementType::I16;
    case 32: return ElementType::I32;
    default: return ElementType::I64;
  }
}

inline ValueType scalarType(ElementType t) {
  ValueType v;
  v.elem = t;
  return v;
}

/// One memref argument's buffer and view: elements [0, length) of `data`
/// (bit patterns), the view at `offset` with `sizes` and `strides` (negative
/// allowed; the generator keeps every view element inside the buffer).
struct MemArg {
  ElementType elem = ElementType::F32;
  std::vector<std::int64_t> sizes, strides;
  std::int64_t offset = 0;
  std::vector<std::uint64_t> data;
};

/// A function the program's main function calls (StmtKind::Call): scalars and memrefs in, scalars out. Its
/// values are numbered with the program's; it sees only its parameters. A memref parameter has the static view
/// of the one argument (kFm or kIm) every call passes for it.
struct Helper {
  std::vector<int> params;
  Block body;  // yields: the results
};

struct Program {
  std::uint64_t seed = 0;
  int inputs = 0;   // io[0..inputs) are inputs
  int outputs = 0;  // io[inputs..inputs+outputs) are outputs
  std::vector<std::uint64_t> io;  // initial contents (inputs; outputs start as 0)
  MemArg fm, im;
  std::uint64_t h = 0, g = 0, c = 0, d = 0;  // the scalar arguments' bits
  std::vector<ValueType> values;
  std::vector<Helper> helpers;  // defined before the main function, in this order
  Block body;
  /// Traps on purpose (an out-of-bounds load, a division by zero, INT_MIN / -1):
  /// what checked mode's message must contain ("out of bounds", "by zero",
  /// "overflow"); such programs run only in checked mode. Empty: none.
  std::string trap;
};

/// Statements in the block (recursively).
std::size_t countStatements(const Block& b);
/// Statements in the program: the main function's and every helper's.
std::size_t countStatements(const Program& p);
/// A helper's signature: "(i32, memref<?x?xf32, strided<[?, ?], offset: ?>>) -> (f16, i64)".
std::string helperSignature(const Program& p, const Helper& h);

}  // namespace memjit::difftest
