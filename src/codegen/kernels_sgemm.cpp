// The kernel library's blocked matrix multiply (kernels.h, addSgemm), written
// with the builder's vector operations. The structure is BLIS's:
//
//   for jc in [0, N) step nc                      B block: kc x nc (L3)
//     for pc in [0, K) step kc
//       pack B[pc:pc+kc, jc:jc+nc] into NR-column panels (zero past N)
//       for ic in [0, M) step mc                  A block: mc x kc (L2)
//         pack A[ic:ic+mc, pc:pc+kc] into MR-row panels (zero past M)
//         for jr, ir: the MR x NR micro-kernel     B micro-panel: kc x NR (L1)
//
// The micro-kernel keeps MR x (NR / lanes) accumulators in vector registers
// and adds, per k, one broadcast A element times NR / lanes B vectors to
// each row (one FMA each). Its C update reads and writes only the lanes
// within N (transfer_read/write masks) and the rows within M.
#include <algorithm>

#include <llvm/IR/IRBuilder.h>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"

namespace memjit::codegen {

namespace {

struct Blocking {
  unsigned mr, nv, lanes;
  std::int64_t nr, kc, mc, nc;
};

Expected<Blocking> blocking(std::string_view name, const SgemmOptions& o) {
  if (o.element != ElementType::F32 && o.element != ElementType::F64)
    return Error(ErrorCode::Unsupported, "kernel '" + std::string(name) + "': element type " +
                                             std::string(spelling(o.element)) + " is not f32 or f64");
  Blocking b;
  b.lanes = o.target.lanes(o.element);
  b.nv = o.vectors ? o.vectors : 2;
  // Besides the accumulators: the B vectors of one k and a broadcast A.
  const unsigned spare = b.nv + 2;
  b.mr = o.rows ? o.rows : std::max(1u, std::min(14u, (o.target.registers - spare) / b.nv));
  if (b.mr * b.nv > 64 || b.nv > 8)
    return Error(ErrorCode::InvalidArgument, "kernel '" + std::string(name) + "': a " + std::to_string(b.mr) + " x " +
                                                 std::to_string(b.nv) + "-vector micro-kernel is too large");
  b.nr = static_cast<std::int64_t>(b.nv) * b.lanes;
  const std::int64_t bytes = static_cast<std::int64_t>(storageSize(o.element));
  // kc: a B micro-panel (kc x NR) of about 24 KiB stays in a 32 KiB L1.
  b.kc = o.kc ? o.kc : std::clamp<std::int64_t>(24 * 1024 / (b.nr * bytes), 64, 512);
  // mc: an A block (mc x kc) of about 256 KiB in L2; nc: B block of 2-4 MiB.
  auto roundTo = [](std::int64_t v, std::int64_t m) { return std::max<std::int64_t>(m, v / m * m); };
  b.mc = roundTo(o.mc ? o.mc : 256 * 1024 / (b.kc * bytes), b.mr);
  b.nc = roundTo(o.nc ? o.nc : 4096, b.nr);
  if (b.kc <= 0)
    return Error(ErrorCode::InvalidArgument, "kernel '" + std::string(name) + "': kc must be positive");
  return b;
}

// A descriptor field as an index Value (the builder has no op for strides).
Value field(FunctionBuilder& b, const Value& m, std::initializer_list<unsigned> at) {
  return b.wrap(b.ir().CreateExtractValue(m.llvm(), at), ElementType::Index);
}

}  // namespace

Error addSgemm(Module& m, std::string_view name, const SgemmOptions& o) {
  auto blk = blocking(name, o);
  if (!blk) return blk.error();
  const Blocking k = *blk;
  const ElementType t = o.element;
  const MemRefType view(t, {kDynamic, kDynamic}, StridedLayout{kDynamic, {kDynamic, 1}});
  FunctionOptions fo;
  fo.arguments.assign(3, ArgumentAttributes{true, 0});
  fo.checked = o.checked;
  FunctionBuilder b(m, std::string(name), FunctionType{{view, view, view}, {}}, fo);
  Value A = b.arg(0), B = b.arg(1), C = b.arg(2);
  Value M = b.dim(C, 0), N = b.dim(C, 1), K = b.dim(A, 1);
  Value zero = b.constant(t, 0), i0 = b.index(0);
  const std::uint32_t L = k.lanes;
  const std::int64_t MR = k.mr, NR = k.nr;

  // K == 0: C = 0 (no panel would write it).
  b.ifThen(K == b.index(0), [&] {
    b.forLoop(i0, M, b.index(1), [&](Value i) {
      b.forLoop(i0, N, b.index(L), [&](Value j) { b.transferWrite(b.splat(zero, L), C, {i, j}); });
    });
  });

  // A^T: a view whose rows are A's columns, so a column of A (MR rows of a
  // panel) is one strided transfer_read, zero-padded past M.
  const MemRefType transposedType(t, {kDynamic, kDynamic}, StridedLayout{kDynamic, {1, kDynamic}});
  Value At = b.reinterpretCast(A, transposedType, field(b, A, {2}), {K, b.dim(A, 0)}, {b.index(1), field(b, A, {4, 0})});

  const MemRefType packed(t, {kDynamic});
  Value bPack = b.alloc(packed, {b.index(k.kc * k.nc)}, 64);
  auto aPackSize = b.index(k.kc * k.mc);
  Value aShared = o.parallel ? Value() : b.alloc(packed, {aPackSize}, 64);
  // Every packed offset is a multiple of L elements from a 64-byte aligned base.
  const VectorMemoryOptions aligned{static_cast<unsigned>(std::min<std::size_t>(64, L * storageSize(t))), false};

  // One MR x NR block of C from packed panels at aOff / bOff.
  auto microKernel = [&](Value aPack, Value aOff, Value bOff, Value kc, Value row0, Value col0, Value first) {
    std::vector<Value> init(k.mr * k.nv, b.splat(zero, L));
    auto acc = b.forLoop(i0, kc, b.index(1), init, LoopOptions{0, 0, 4}, [&](Value p, const std::vector<Value>& s) {
      std::vector<Value> bv;
      Value bp = bOff + p * b.index(NR);
      for (unsigned v = 0; v < k.nv; ++v) bv.push_back(b.vectorLoad(bPack, {bp + b.index(v * L)}, L, aligned));
      Value ap = aOff + p * b.index(MR);
      std::vector<Value> next(s.size());
      for (unsigned r = 0; r < k.mr; ++r) {
        Value a = b.splat(b.load(aPack, {ap + b.index(r)}), L);
        for (unsigned v = 0; v < k.nv; ++v) next[r * k.nv + v] = b.fma(a, bv[v], s[r * k.nv + v]);
      }
      return next;
    });
    for (unsigned r = 0; r < k.mr; ++r) {
      Value row = row0 + b.index(r);
      b.ifThen(row < M, [&] {
        for (unsigned v = 0; v < k.nv; ++v) {
          Value col = col0 + b.index(v * L);
          Value sum = acc[r * k.nv + v];
          Value old = b.transferRead(C, {row, col}, L, zero);
          b.transferWrite(b.select(first, sum, sum + old), C, {row, col});
        }
      });
    }
  };

  // Packs A[ic:ic+mc, pc:pc+kc] (mc rounded up to MR) and runs the micro-kernels.
  auto rowBlock = [&](Value aPack, Value ic, Value pc, Value kc, Value jc, Value nc, Value first) {
    Value mc = b.min(b.index(k.mc), M - ic);
    b.forLoop(i0, mc, b.index(MR), [&](Value ir) {
      Value panel = ir * kc;  // MR * kc per panel, panels MR rows apart
      b.forLoop(i0, kc, b.index(1), [&](Value p) {
        b.vectorStore(b.transferRead(At, {pc + p, ic + ir}, k.mr, zero), aPack, {panel + p * b.index(MR)});
      });
    });
    b.forLoop(i0, nc, b.index(NR), [&](Value jr) {
      b.forLoop(i0, mc, b.index(MR), [&](Value ir) {
        microKernel(aPack, ir * kc, jr * kc, kc, ic + ir, jc + jr, first);
      });
    });
  };

  b.forLoop(i0, N, b.index(k.nc), [&](Value jc) {
    Value nc = b.min(b.index(k.nc), N - jc);
    b.forLoop(i0, K, b.index(k.kc), [&](Value pc) {
      Value kc = b.min(b.index(k.kc), K - pc);
      Value first = pc == b.index(0);
      // B panel jr: kc rows of NR columns, at jr * kc.
      auto packB = [&](Value jr) {
        b.forLoop(i0, kc, b.index(1), [&](Value p) {
          for (unsigned v = 0; v < k.nv; ++v)
            b.vectorStore(b.transferRead(B, {pc + p, jc + jr + b.index(v * L)}, L, zero), bPack,
                          {jr * kc + p * b.index(NR) + b.index(v * L)}, aligned);
        });
      };
      if (o.parallel) {
        b.parallelFor(i0, nc, b.index(NR), {}, packB);
        b.parallelFor(i0, M, b.index(k.mc), {}, [&](Value ic) {
          Value aPack = b.alloc(packed, {aPackSize}, 64);
          rowBlock(aPack, ic, pc, kc, jc, nc, first);
          b.dealloc(aPack);
        });
      } else {
        b.forLoop(i0, nc, b.index(NR), packB);
        b.forLoop(i0, M, b.index(k.mc), [&](Value ic) { rowBlock(aShared, ic, pc, kc, jc, nc, first); });
      }
    });
  });
  b.dealloc(bPack);
  if (!o.parallel) b.dealloc(aShared);
  b.ret();
  return b.finish();
}

}  // namespace memjit::codegen
