#include "memjit/codegen/kernels.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>

#include "builder_checks.h"
#include "kernel_first_tiers.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/lowering.h"

namespace memjit::codegen {

namespace {

Error checkElement(std::string_view name, const KernelOptions& o) {
  if (!isFloat(o.element))
    return Error(ErrorCode::Unsupported, "kernel '" + std::string(name) + "': element type " +
                                             std::string(spelling(o.element)) + " is not a float type");
  return Error::success();
}

MemRefType vec(const KernelOptions& o) { return MemRefType(o.element, {kDynamic}); }
MemRefType mat(const KernelOptions& o) { return MemRefType(o.element, {kDynamic, kDynamic}); }

FunctionOptions functionOptions(const KernelOptions& o, std::size_t inputs) {
  FunctionOptions f;
  f.arguments.assign(inputs, ArgumentAttributes{o.noalias, o.alignment});
  f.checked = o.checked;
  f.fastMath = o.fastMath;
  f.debugInfo = o.debugInfo;
  return f;
}

// Checked mode: the operands' shapes agree as `what` says. Each access is
// checked against its own operand only, so a mismatch that keeps every
// access in bounds (a B with extra rows) would compute silently.
void checkShapes(FunctionBuilder& b, const KernelOptions& o, std::string_view what,
                 const std::vector<std::string>& names, const std::vector<Value>& operands,
                 const std::function<Value(const std::vector<Value>& sizes)>& agree) {
  if (!o.checked) return;
  std::vector<Value> sizes;
  std::vector<llvm::Value*> raw;
  std::vector<std::int64_t> ranks;
  for (const Value& m : operands) {
    const std::int64_t rank = std::get<MemRefType>(m.type()).rank();
    ranks.push_back(rank);
    for (std::int64_t d = 0; d < rank; ++d) {
      sizes.push_back(b.dim(m, static_cast<std::size_t>(d)));
      raw.push_back(sizes.back().llvm());
    }
  }
  detail::checkShapes(b, agree(sizes).llvm(), what, names, raw, ranks);
}

}  // namespace

Error addElementwiseAdd(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), vec(o), vec(o)}, {}}, functionOptions(o, 3));
  Value a = b.arg(0), x = b.arg(1), out = b.arg(2);
  checkShapes(b, o, "elementwise add (a, b, out: as many elements each)", {"a", "b", "out"}, {a, x, out},
              [](const std::vector<Value>& n) { return (n[0] == n[2]) & (n[1] == n[2]); });
  b.forLoop(b.index(0), b.dim(out, 0), b.index(1),
            [&](Value i) { b.store(b.load(a, {i}) + b.load(x, {i}), out, {i}, {o.nontemporal}); });
  b.ret();
  return b.finish();
}

Error addSaxpy(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{o.element, vec(o), vec(o)}, {}}, functionOptions(o, 3));
  Value alpha = b.arg(0), x = b.arg(1), y = b.arg(2);
  checkShapes(b, o, "saxpy (x, y: as many elements each)", {"x", "y"}, {x, y},
              [](const std::vector<Value>& n) { return n[0] == n[1]; });
  b.forLoop(b.index(0), b.dim(y, 0), b.index(1), [&](Value i) {
    b.store(b.fma(alpha, b.load(x, {i}), b.load(y, {i})), y, {i}, {o.nontemporal});
  });
  b.ret();
  return b.finish();
}

Error addMatmul(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{mat(o), mat(o), mat(o)}, {}}, functionOptions(o, 3));
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2);
  checkShapes(b, o, "matmul (A: M x K, B: K x N, C: M x N)", {"A", "B", "C"}, {A, B, C},
              [](const std::vector<Value>& n) { return (n[0] == n[4]) & (n[1] == n[2]) & (n[3] == n[5]); });
  Value zero = b.constant(o.element, 0.0), one = b.index(1), lo = b.index(0);
  b.forLoop(lo, b.dim(C, 0), one, [&](Value i) {
    b.forLoop(lo, b.dim(C, 1), one, [&](Value j) {
      auto acc = b.forLoop(lo, b.dim(A, 1), one, {zero}, [&](Value k, const std::vector<Value>& s) {
        return std::vector<Value>{b.fma(b.load(A, {i, k}), b.load(B, {k, j}), s[0])};
      });
      b.store(acc[0], C, {i, j}, {o.nontemporal});
    });
  });
  b.ret();
  MEMJIT_TRY(b.finish());
  // Checked mode's reports, and fast-math's licence to reorder, are the
  // kernel's own; so is the order of its reads and writes where C may overlap
  // A or B (the first-tier body reads A and B for many columns of C at once).
  if (!o.checked && o.fastMath == FastMath::None && !o.debugInfo && o.noalias)
    detail::addMatmulFirstTierBody(m, std::string(name), o.element, MatrixLayout::RowMajor, MatrixLayout::RowMajor, 0);
  return Error::success();
}

Error addSum(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o)}, {o.element}}, functionOptions(o, 1));
  Value x = b.arg(0);
  auto sum = b.forLoop(b.index(0), b.dim(x, 0), b.index(1), {b.constant(o.element, 0.0)},
                       [&](Value i, const std::vector<Value>& s) { return std::vector<Value>{s[0] + b.load(x, {i})}; });
  b.ret({sum[0]});
  return b.finish();
}

Error addSoftmax(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{mat(o), mat(o)}, {}}, functionOptions(o, 2));
  Value in = b.arg(0), out = b.arg(1), cols = b.dim(in, 1), zero = b.index(0), one = b.index(1);
  checkShapes(b, o, "softmax (in, out: rows x cols each)", {"in", "out"}, {in, out},
              [](const std::vector<Value>& n) { return (n[0] == n[2]) & (n[1] == n[3]); });
  const Value minusInfinity = b.constant(o.element, -std::numeric_limits<double>::infinity());
  b.forLoop(zero, b.dim(in, 0), one, [&](Value r) {
    Value max = b.forLoop(zero, cols, one, {minusInfinity}, [&](Value c, const std::vector<Value>& acc) {
      return std::vector<Value>{b.maxnumf(acc[0], b.load(in, {r, c}))};
    })[0];
    Value sum;
    if ((o.fastMath & FastMath::Reassoc) != FastMath::None) {
      // One pass: with reassoc the sum vectorises along with the exp.
      sum = b.forLoop(zero, cols, one, {b.constant(o.element, 0.0)}, [&](Value c, const std::vector<Value>& acc) {
        Value e = b.exp(b.load(in, {r, c}) - max);
        b.store(e, out, {r, c});
        return std::vector<Value>{acc[0] + e};
      })[0];
    } else {
      // Exact: a loop carrying the in-order sum cannot vectorise, and the exp in
      // it would stay scalar too; so the exps get a loop of their own (vector
      // math), and the sum, in order, reads them back: the same values, summed
      // in the same order, ~2x faster (docs/benchmarks.md, "Exact softmax").
      b.forLoop(zero, cols, one, [&](Value c) { b.store(b.exp(b.load(in, {r, c}) - max), out, {r, c}); });
      sum = b.forLoop(zero, cols, one, {b.constant(o.element, 0.0)}, [&](Value c, const std::vector<Value>& acc) {
        return std::vector<Value>{acc[0] + b.load(out, {r, c})};
      })[0];
    }
    Value inverse = 1.0 / sum;
    b.forLoop(zero, cols, one,
              [&](Value c) { b.store(b.load(out, {r, c}) * inverse, out, {r, c}, {o.nontemporal}); });
  });
  b.ret();
  MEMJIT_TRY(b.finish());
  // Checked mode's reports and fast-math's one-pass sum are the kernel's own.
  if (!o.checked && o.fastMath == FastMath::None && !o.debugInfo)
    detail::addSoftmaxFirstTierBody(m, std::string(name), o.element);
  return Error::success();
}

namespace {

// Elements per tile side: one 64-byte cache line of the element (16 for f32,
// 8 for f64), at most 16 so a tile's rows fit the vector registers.
unsigned transposeTile(ElementType t) {
  unsigned bytes = std::max(1u, bitWidth(t) / 8);
  return std::min(16u, 64u / bytes);
}

// Address of m[r, c] for a 2-d memref whose dim 1 has unit stride: the aligned
// pointer plus r * stride0 + c (read from the descriptor, as loads do).
llvm::Value* rowAddress(FunctionBuilder& b, llvm::Type* elem, const Value& m, const Value& r, const Value& c) {
  llvm::IRBuilderBase& ir = b.ir();
  Value stride = b.wrap(ir.CreateExtractValue(m.llvm(), {4, 0}), ElementType::Index);
  Value linear = r * stride + c;
  return ir.CreateInBoundsGEP(elem, ir.CreateExtractValue(m.llvm(), {1}), {linear.llvm()});
}

// One T x T tile: T row vectors of `in` loaded, transposed in registers by
// log2(T) rounds of interleaving row m with row m + T/2 (after the last round
// vector k holds column k), and stored as T rows of `out`. LLVM's vectorisers
// do not find this shuffle network in the scalar loop (they emit one scalar
// load and store per element), so the kernel states it.
void transposeTile(FunctionBuilder& b, const KernelOptions& o, unsigned T, const Value& in, const Value& out,
                   const Value& i0, const Value& j0) {
  llvm::IRBuilderBase& ir = b.ir();
  llvm::Type* elem = lowerElementType(ir.getContext(), o.element, LoweringOptions{});
  auto* vec = llvm::FixedVectorType::get(elem, T);
  const llvm::Align align(std::max(1u, bitWidth(o.element) / 8));
  std::vector<llvm::Value*> rows(T);
  for (unsigned jj = 0; jj < T; ++jj)
    rows[jj] = ir.CreateAlignedLoad(vec, rowAddress(b, elem, in, j0 + b.index(jj), i0), align);
  std::vector<int> lo(T), hi(T);
  for (unsigned k = 0; k < T / 2; ++k) {
    lo[2 * k] = int(k), lo[2 * k + 1] = int(k + T);
    hi[2 * k] = int(k + T / 2), hi[2 * k + 1] = int(k + T / 2 + T);
  }
  for (unsigned round = 1; round < T; round *= 2) {
    std::vector<llvm::Value*> next(T);
    for (unsigned m = 0; m < T / 2; ++m) {
      next[2 * m] = ir.CreateShuffleVector(rows[m], rows[m + T / 2], lo);
      next[2 * m + 1] = ir.CreateShuffleVector(rows[m], rows[m + T / 2], hi);
    }
    rows = std::move(next);
  }
  for (unsigned ii = 0; ii < T; ++ii) {
    llvm::StoreInst* s = ir.CreateAlignedStore(rows[ii], rowAddress(b, elem, out, i0 + b.index(ii), j0), align);
    if (o.nontemporal) markNontemporal(s);
  }
}

}  // namespace

Error addTranspose(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{mat(o), mat(o)}, {}}, functionOptions(o, 2));
  Value in = b.arg(0), out = b.arg(1);
  // The full tiles load and store through raw pointers: unchecked, so the
  // shapes must be right before them.
  checkShapes(b, o, "transpose (in: rows x cols, out: cols x rows)", {"in", "out"}, {in, out},
              [](const std::vector<Value>& n) { return (n[0] == n[3]) & (n[1] == n[2]); });
  const unsigned T = transposeTile(o.element);
  Value rows = b.dim(in, 0), cols = b.dim(in, 1), t = b.index(T), one = b.index(1), zero = b.index(0);
  // Full tiles cover [0, colsFull) x [0, rowsFull); the edges are scalar.
  Value colsFull = cols - b.rem(cols, t), rowsFull = rows - b.rem(rows, t);
  // The edges read `in` through its transpose: the same buffer with the
  // strides swapped.
  Value inStride = b.wrap(b.ir().CreateExtractValue(in.llvm(), {4, 0}), ElementType::Index);
  MemRefType anyStrides(o.element, {kDynamic, kDynamic}, StridedLayout{kDynamic, {kDynamic, kDynamic}});
  Value view = b.reinterpretCast(in, anyStrides, b.index(0), {cols, rows}, {one, inStride});
  b.forLoop(zero, colsFull, t, [&](Value i0) {
    b.forLoop(zero, rowsFull, t, [&](Value j0) { transposeTile(b, o, T, in, out, i0, j0); });
  });
  // One loop nest for both edges (rows of out below colsFull miss their last
  // rows % T elements, the rows from colsFull on miss all): LLVM versions
  // each strided loop for a unit stride, and fewer loops compile faster.
  b.forLoop(zero, cols, one, [&](Value i) {
    Value from = b.select(b.cmp(CmpPredicate::Lt, i, colsFull), rowsFull, zero);
    b.forLoop(from, rows, one, [&](Value j) { b.store(b.load(view, {i, j}), out, {i, j}, {o.nontemporal}); });
  });
  b.ret();
  return b.finish();
}

namespace {

Value scaledCopy(FunctionBuilder& b, const KernelOptions& o) {
  Value x = b.arg(0), scale = b.arg(1);
  Value n = b.dim(x, 0);
  Value r = b.alloc(vec(o), {n}, 64);
  b.forLoop(b.index(0), n, b.index(1), [&](Value i) { b.store(scale * b.load(x, {i}), r, {i}, {o.nontemporal}); });
  return r;
}

}  // namespace

Error addScaledCopy(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), o.element}, {vec(o)}}, functionOptions(o, 2));
  b.ret({scaledCopy(b, o)});
  return b.finish();
}

Error addScaledCopyUnranked(Module& m, std::string_view name, const KernelOptions& o) {
  MEMJIT_TRY(checkElement(name, o));
  FunctionBuilder b(m, std::string(name), FunctionType{{vec(o), o.element}, {UnrankedMemRefType{o.element}}},
                    functionOptions(o, 2));
  b.ret({b.castToUnranked(scaledCopy(b, o))});
  return b.finish();
}

}  // namespace memjit::codegen
