// The kernel library's blocked matrix multiply (kernels.h, addSgemm), written
// with the builder's vector operations. The structure is BLIS's, with C
// row-major (BLIS's column-major C transposed: our A plays its B):
//
//   for ic in [0, M) step mc                      A block: mc x kc (L3)
//     for pc in [0, K) step kc
//       for jc in [0, N) step nc                  B block: kc x nc (L2)
//         pack B[pc:pc+kc, jc:jc+nc] into NR-column panels (zero past N)
//         for ir:                                 A micro-panel: MR x kc (L1)
//           (first jc) pack A[ic+ir:ic+ir+MR, pc:pc+kc] (rows past M repeat M - 1)
//           for jr: the MR x NR micro-kernel
//
// so each A element is packed once, each B row once per A block, and the B
// micro-panels stream from L2 past an A micro-panel that stays in L1. The
// micro-kernel's k loop spreads prefetches over its steps: B's panel a few
// steps ahead, the next tile of C and the next A micro-panel's rows (from A
// or its pack) a few lines per 16 steps, so that no packing or C update
// waits on memory in one burst.
//
// Problems whose B fits SgemmOptions::directBytes skip the packing (as
// OpenBLAS's small-matrix kernels and libxsmm do: packing costs as much as
// the product there):
//
//   for ir in [0, M) step MR                      MR rows of A in place
//     for jr in [0, N) step NR                    B in place (L1), or packed once
//       for pc in [0, K) step kc: the micro-kernel, then C += (C = on the first)
//
// with the same kc blocks, so both paths sum in the same order (kernels.h).
//
// The micro-kernel keeps MR x (NR / lanes) accumulators in vector registers
// and adds, per k, one broadcast A element times NR / lanes B vectors to
// each row (one FMA each). Its C update reads and writes only the lanes
// within N (transfer_read/write masks) and the rows within M.
#include <algorithm>
#include <functional>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "builder_checks.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/kernels.h"
#include "kernel_first_tiers.h"

namespace memjit::codegen {

namespace {

struct Blocking {
  unsigned mr, nv, lanes;
  unsigned directMr, directNv;  // the unpacked path's micro-kernel
  std::int64_t nr, kc, mc, nc, directBytes;
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
  // Unpacked, each row of A is its own pointer: at most 6 rows (6 address
  // registers of 16) times 4 vectors where 32 vector registers hold them, 6
  // x 2 with 16. LLVM issues a step's broadcasts of A all ahead of its FMAs,
  // so the registers must hold mr broadcasts besides the accumulators and
  // B's vectors: 6 x 4 needs 34 of 32, and spilled, its k loop ran 40 copies
  // per 24 FMAs (256^3 at 0.75x OpenBLAS); 5 x 4 needs 29, but 4 x 4 runs
  // as fast at every unpacked shape benchmarked and divides the M of most
  // problems: 64^3 in 5-row tiles is 12 and one holding 4 rows (4.94-5.08
  // us), in 4-row tiles 16 (4.64-4.71 us; OpenBLAS 4.62-4.73; Zen 4).
  // (16 registers keep 6 x 2, not measured on an AVX2 machine.)
  b.directNv = o.vectors ? b.nv : (o.target.registers >= 32 ? 4 : 2);
  const unsigned directRows = o.target.registers >= 32 ? 4 : (o.target.registers - b.directNv - 2) / b.directNv;
  b.directMr = o.rows ? b.mr : std::max(1u, std::min(6u, directRows));
  const std::int64_t bytes = static_cast<std::int64_t>(storageSize(o.element));
  // kc: a B micro-panel (kc x NR) of 32 KiB, at most 384 deep: 256 for
  // AVX-512 (NR 32 f32 / 16 f64) and 384 for AVX2; the A micro-panel (14 x
  // 256 f32, 14 KiB) stays in a 48 KiB L1 beside the B stream. Each kc block
  // costs a pass over C (its update and the misses of its rows), so deeper
  // is faster while the panels stay cached: 256 rather than 192 took
  // 1024-2048 from 0.85-0.90x to 0.95x OpenBLAS. kc fixes the summation
  // order (kernels.h), so changing it changes results.
  b.kc = o.kc ? o.kc : std::clamp<std::int64_t>(32 * 1024 / (b.nr * bytes), 64, 384);
  // nc: a B block (kc x nc) of half the L2 (1024 f32 columns at kc 256 in
  // a 2 MiB L2, 512 in 1 MiB); mc: an A block of 3 MiB in L3 (3066 rows),
  // so A is packed once up to 3066 rows. With the B block at 4 MiB (out of
  // L2) and A re-packed per B block, 2048 ran at 0.92x OpenBLAS; this nest,
  // 0.99x (2 MiB L2). On Zen 5 (1 MiB L2), a 1 MiB block ran 1024-2048 at
  // 0.89-0.91 of the FMA peak, a 512 KiB one at 0.93-0.95.
  auto roundTo = [](std::int64_t v, std::int64_t m) { return std::max<std::int64_t>(m, v / m * m); };
  b.mc = roundTo(o.mc ? o.mc : 3 * 1024 * 1024 / (b.kc * bytes), b.mr);
  const std::int64_t halfL2 = o.target.l2Bytes / 2;
  b.nc = roundTo(o.nc ? o.nc : halfL2 / (b.kc * bytes), b.nr);
  // Unpacked up to a B of half the L2 (packed once): with 2 MiB, 512^3 (a 1
  // MiB B) ran unpacked at 1.03x OpenBLAS, packed at 0.99x; 1024^3 (4 MiB)
  // unpacked at half the speed (B streams from L3 for every few rows of A).
  // With 1 MiB (Zen 5), 512^3 ran unpacked at 0.86 of the peak, packed 0.95.
  b.directBytes = o.directBytes >= 0 ? o.directBytes : halfL2;
  if (b.kc <= 0)
    return Error(ErrorCode::InvalidArgument, "kernel '" + std::string(name) + "': kc must be positive");
  return b;
}

// A descriptor field as an index Value (the builder has no op for strides).
Value field(FunctionBuilder& b, const Value& m, std::initializer_list<unsigned> at) {
  return b.wrap(b.ir().CreateExtractValue(m.llvm(), at), ElementType::Index);
}

// The kernel's body: the loop nest above, one method per level.
class SgemmKernel {
 public:
  SgemmKernel(FunctionBuilder& b, const Blocking& k, const SgemmOptions& o)
      : b_(b), k_(k), o_(o), t_(o.element), L_(k.lanes), MR_(k.mr), NR_(k.nr), packed_(o.element, {kDynamic}),
        // Every packed offset is a multiple of L elements from a 64-byte aligned base.
        aligned_{static_cast<unsigned>(std::min<std::size_t>(64, L_ * storageSize(t_))), false},
        rowPanels_(o.a == MatrixLayout::RowMajor), aStride_((k.kc + L_ - 1) / L_ * L_),
        PR_((MR_ + L_ - 1) / L_ * L_) {}

  void build() {
    readOperands();
    checkShapes();
    zeroCWhenKIsEmpty();
    Value bBytes = K_ * N_ * b_.index(static_cast<std::int64_t>(storageSize(t_)));
    Value limit = b_.index(k_.directBytes);
    b_.ifThen(bBytes <= limit, [&] { unpacked(); });
    b_.ifThen(bBytes > limit, [&] { packed(); });
    b_.ret();
  }

 private:
  void readOperands() {
    A_ = b_.arg(0);
    B_ = b_.arg(1);
    C_ = b_.arg(2);
    M_ = b_.dim(C_, 0);
    N_ = b_.dim(C_, 1);
    K_ = b_.dim(A_, 1);
    zero_ = b_.constant(t_, 0);
    i0_ = b_.index(0);
  }

  // Checked mode: A is M x K, B K x N, C M x N. Every access stays within
  // its own operand, so mismatched shapes would pass the index checks and
  // compute from the wrong rows.
  void checkShapes() {
    if (!o_.checked) return;
    const std::vector<Value> sizes = {b_.dim(A_, 0), K_, b_.dim(B_, 0), b_.dim(B_, 1), M_, N_};
    Value ok = (sizes[0] == M_) & (sizes[2] == K_) & (sizes[3] == N_);
    std::vector<llvm::Value*> raw;
    for (const Value& v : sizes) raw.push_back(v.llvm());
    detail::checkShapes(b_, ok.llvm(), "sgemm (A: M x K, B: K x N, C: M x N)", {"A", "B", "C"}, raw, {2, 2, 2});
  }

  // The BLIS loop nest over packed panels.
  void packed() {
    At_ = transposedView(A_, o_.a);
    if (o_.b == MatrixLayout::ColumnMajor) Bt_ = transposedView(B_, o_.b);
    // The A block's rows: mc, or M rounded up to MR when smaller.
    Value aRows = b_.min(b_.index(k_.mc), b_.ceildivsi(M_, b_.index(MR_)) * b_.index(MR_));
    aPack_ = b_.alloc(packed_, {rowPanels_ ? aRows * b_.index(aStride_) : columnPanelAt(aRows, b_.index(k_.kc))}, 64);
    bPack_ = b_.alloc(packed_, {b_.index(k_.kc * k_.nc)}, 64);
    b_.forLoop(i0_, M_, b_.index(k_.mc), [&](Value ic) { rowBlock(ic); });
    b_.dealloc(bPack_);
    b_.dealloc(aPack_);
  }

  // Small B: the micro-kernel on A in place, MR rows at a time, and on B
  // in place while it fits L1 (kInPlaceBBytes), else packed once, whole,
  // into K x NR panels: in place, a tile's columns of a larger B lie a row
  // stride apart (256 x 256: 1 KiB, 16 of L1's 64 sets) and stream from L2
  // with the rows of every A block (256^3 at 0.84x OpenBLAS in place, 1.05x
  // packed; 1024x64x1024 1.25x). Both read B through one view (selected at
  // run time: one copy of the tile code). A column-major B (no unit stride
  // along N) is always packed. A column-major A is copied, MR rows at a
  // time, into a K x MR strip when N spans several tiles and B is read in
  // place (the strip is reused): in place, A's columns lie a column stride
  // apart, and where that stride is B's row stride (256 x 256: 1 KiB) the
  // two streams share 4 of L1's 64 sets (0.83x OpenBLAS; with the strip,
  // 1.03-1.07x). With one tile (N <= NR) the copy would only add a pass
  // over A, and beside a packed B (contiguous) it bought nothing (256 A^T
  // 0.98-1.01x with it, 1.01-1.02x without).
  void unpacked() {
    const bool packA = o_.a == MatrixLayout::ColumnMajor, columnMajorB = o_.b == MatrixLayout::ColumnMajor;
    const Value stripSize = K_ * b_.index(k_.directMr);
    const std::int64_t dnr = static_cast<std::int64_t>(k_.directNv) * L_;
    const Value bBytes = K_ * N_ * b_.index(static_cast<std::int64_t>(storageSize(t_)));
    const Value packB = columnMajorB ? b_.constant(ElementType::I1, 1) : bBytes > b_.index(kInPlaceBBytes);
    const Value panels = b_.ceildivsi(N_, b_.index(dnr));
    if (columnMajorB) Bt_ = transposedView(B_, o_.b);
    bPack_ = b_.alloc(packed_, {b_.select(packB, panels * b_.index(dnr) * K_, i0_)}, 64);
    b_.ifThen(packB, [&] {
      b_.forLoop(i0_, N_, b_.index(dnr), [&](Value jr) { packBPanel(i0_, i0_, K_, jr, k_.directNv); });
    });
    // B's columns [jr, N) as a row-major K x (N - jr) view: packed, panel jr
    // (rows dnr apart, zero past N); else B itself.
    const MemRefType rowMajor(t_, {kDynamic, kDynamic}, StridedLayout{kDynamic, {kDynamic, 1}});
    auto tileOfB = [&](const Value& jr) {
      if (columnMajorB)
        return b_.reinterpretCast(bPack_, rowMajor, jr * K_, {K_, N_ - jr}, {b_.index(dnr), b_.index(1)});
      Value inPlace = b_.reinterpretCast(B_, rowMajor, field(b_, B_, {2}) + jr, {K_, N_ - jr},
                                         {field(b_, B_, {4, 0}), b_.index(1)});
      // The packed view as the in-place one's descriptor with the panel's
      // buffer, offset and row stride: a checked reinterpret_cast of the
      // (then empty) pack would fail where B is read in place.
      llvm::IRBuilderBase& ir = b_.ir();
      llvm::Value* packed = inPlace.llvm();
      for (unsigned f : {0u, 1u}) packed = ir.CreateInsertValue(packed, ir.CreateExtractValue(bPack_.llvm(), {f}), {f});
      packed = ir.CreateInsertValue(packed, (jr * K_).llvm(), {2});
      packed = ir.CreateInsertValue(packed, b_.index(dnr).llvm(), {4, 0});
      return b_.select(packB, b_.wrap(packed, inPlace.type()), inPlace);
    };
    Value sharedStrip;
    if (packA) {
      At_ = transposedView(A_, o_.a);
      if (!o_.parallel) sharedStrip = b_.alloc(packed_, {stripSize}, 64);
    }
    auto rowBlock = [&](Value ir) {
      // Rows past M (the last block) repeat row M - 1: in bounds, not written.
      Value last = M_ - b_.index(1);
      std::vector<Value> rows;
      for (unsigned r = 0; r < k_.directMr; ++r) rows.push_back(b_.min(ir + b_.index(r), last));
      auto tilesOf = [&](unsigned mr, const std::function<Value(unsigned, const Value&)>& aAt) {
        b_.forLoop(i0_, N_, b_.index(dnr), [&](Value jr) {
          Value tileB = tileOfB(jr);
          b_.ifThen(jr + b_.index(dnr) <= N_, [&] {
            unpackedTile(mr, ir, jr, aAt, [&](unsigned v, const Value& k) {
              return b_.vectorLoad(tileB, {k, b_.index(v * L_)}, L_);
            });
          });
          b_.ifThen(jr + b_.index(dnr) > N_, [&] {  // lanes past N read zero
            unpackedTile(mr, ir, jr, aAt, [&](unsigned v, const Value& k) {
              return b_.transferRead(tileB, {k, b_.index(v * L_)}, L_, zero_);
            });
          });
        });
      };
      // The last block, when it has few rows, as in the packed path (M = 67: 16 x 4 + 3).
      const unsigned edge = edgeRows(k_.directMr);
      auto tiles = [&](const std::function<Value(unsigned, const Value&)>& aAt) {
        if (edge == 0) return tilesOf(k_.directMr, aAt);
        b_.ifThen(M_ - ir > b_.index(edge), [&] { tilesOf(k_.directMr, aAt); });
        b_.ifThen(M_ - ir <= b_.index(edge), [&] { tilesOf(edge, aAt); });
      };
      auto inPlace = [&](unsigned r, const Value& k) { return b_.load(A_, {rows[r], k}); };
      if (!packA) return tiles(inPlace);
      Value useStrip = (N_ > b_.index(dnr)) & ~packB;
      b_.ifThen(~useStrip, [&] { tiles(inPlace); });
      b_.ifThen(useStrip, [&] {
        Value strip = o_.parallel ? b_.alloc(packed_, {stripSize}, 64) : sharedStrip;
        b_.forLoop(i0_, K_, b_.index(1), [&](Value p) {  // rows past M read zero
          b_.vectorStore(b_.transferRead(At_, {p, ir}, k_.directMr, zero_), strip, {p * b_.index(k_.directMr)});
        });
        tiles([&](unsigned r, const Value& k) { return b_.load(strip, {k * b_.index(k_.directMr) + b_.index(r)}); });
        if (o_.parallel) b_.dealloc(strip);
      });
    };
    if (o_.parallel)
      b_.parallelFor(i0_, M_, b_.index(k_.directMr), {}, rowBlock);
    else
      b_.forLoop(i0_, M_, b_.index(k_.directMr), rowBlock);
    if (packA && !o_.parallel) b_.dealloc(sharedStrip);
    b_.dealloc(bPack_);
  }

  // C[row0:row0+MR, col0:col0+NR] over K in kc blocks; aAt(r, k) is A's
  // element (row0 + r, k), bAt(v, k) vector v of B's row k.
  template <typename ALoad, typename BLoad>
  void unpackedTile(unsigned mr, const Value& row0, const Value& col0, const ALoad& aAt, const BLoad& bAt) {
    prefetchC(mr, k_.directNv, row0, col0);
    b_.forLoop(i0_, K_, b_.index(k_.kc), [&](Value pc) {
      Value kc = b_.min(b_.index(k_.kc), K_ - pc);
      auto acc = chain(mr, k_.directNv, kc, [&](unsigned v, const Value& p) { return bAt(v, pc + p); },
                       [&](unsigned r, const Value& p) { return aAt(r, pc + p); });
      updateC(mr, k_.directNv, acc, row0, col0, pc == b_.index(0));
    });
  }

  // K == 0: C = 0 (no panel would write it).
  void zeroCWhenKIsEmpty() {
    b_.ifThen(K_ == b_.index(0), [&] {
      b_.forLoop(i0_, M_, b_.index(1), [&](Value i) {
        b_.forLoop(i0_, N_, b_.index(L_), [&](Value j) { b_.transferWrite(b_.splat(zero_, L_), C_, {i, j}); });
      });
    });
  }

  // m^T, for A (M x K) or B (K x N) in `layout`: a view whose rows are m's
  // columns. A column of a row-major A (MR rows of a panel) is then one
  // strided transfer_read, zero-padded past M; a column-major operand's
  // transpose has unit stride along its rows (contiguous reads along k).
  Value transposedView(const Value& m, MatrixLayout layout) {
    const bool rowMajor = layout == MatrixLayout::RowMajor;
    const MemRefType transposedType(t_, {kDynamic, kDynamic}, rowMajor ? StridedLayout{kDynamic, {1, kDynamic}}
                                                                       : StridedLayout{kDynamic, {kDynamic, 1}});
    Value rowStride = field(b_, m, {4, 0}), colStride = field(b_, m, {4, 1});
    return b_.reinterpretCast(m, transposedType, field(b_, m, {2}), {b_.dim(m, 1), b_.dim(m, 0)},
                              {rowMajor ? b_.index(1) : colStride, rowMajor ? rowStride : b_.index(1)});
  }

  // rows[i] lane j -> result[j] lane i, for a power-of-two count of rows of
  // as many lanes: log2 of it rounds, each interleaving row i with row i +
  // half into rows 2i (low halves) and 2i + 1 (high halves).
  std::vector<Value> transposed(std::vector<Value> rows) {
    const auto n = static_cast<std::int32_t>(rows.size()), half = n / 2;
    std::vector<std::int32_t> low, high;
    for (std::int32_t i = 0; i < half; ++i) {
      low.insert(low.end(), {i, n + i});
      high.insert(high.end(), {half + i, n + half + i});
    }
    for (std::int32_t round = 1; round < n; round *= 2) {
      std::vector<Value> next(rows.size());
      for (std::int32_t i = 0; i < half; ++i) {
        next[2 * i] = b_.shuffle(rows[i], rows[i + half], low);
        next[2 * i + 1] = b_.shuffle(rows[i], rows[i + half], high);
      }
      rows = std::move(next);
    }
    return rows;
  }

  // Rows [ic, ic + mc) of C, over K in steps of kc: A's block packed once
  // per kc block, B's per column block. In the parallel build each packing
  // and each row of micro-kernels is split over the pool (MR rows a task).
  void rowBlock(const Value& ic) {
    Value mc = b_.min(b_.index(k_.mc), M_ - ic);
    b_.forLoop(i0_, K_, b_.index(k_.kc), [&](Value pc) {
      Value kc = b_.min(b_.index(k_.kc), K_ - pc);
      Value first = pc == b_.index(0);
      b_.forLoop(i0_, N_, b_.index(k_.nc), [&](Value jc) {
        Value nc = b_.min(b_.index(k_.nc), N_ - jc);
        Value firstColumns = jc == b_.index(0);
        packB(jc, pc, kc, nc, k_.nv);
        split(mc, MR_, [&](Value ir) {
          b_.ifThen(firstColumns, [&] { packAPanel(ic, ir, pc, kc); });
          auto sweep = [&](unsigned mr) {
            b_.forLoop(i0_, nc, b_.index(NR_), [&](Value jr) {
              // Micro-kernel t = jr / NR of a panel's sweep fetches part t of the next panel.
              Value t = b_.divsi(jr, b_.index(NR_));
              microKernel(mr, rowPanels_ ? ir * b_.index(aStride_) : columnPanelAt(ir, kc), jr * kc, kc, ic + ir,
                          jc + jr, first,
                          [&](const Value& q) { prefetchNextAPanel(ic, ir, mc, pc, kc, t, q, firstColumns); });
            });
          };
          const unsigned edge = edgeRows(k_.mr);
          if (edge == 0) return sweep(k_.mr);
          b_.ifThen(mc - ir > b_.index(edge), [&] { sweep(k_.mr); });
          b_.ifThen(mc - ir <= b_.index(edge), [&] { sweep(edge); });
        });
      });
    });
  }

  // Segment q of micro-kernel t of panel ir's sweep fetches a line of the
  // next panel into L2: from A in the first column block, else from its
  // pack. A row-major A: line q of row t (of 14 rows x 16 lines at kc 256);
  // a column-major A: the next panel's part of A^T's row t * 16 + q (its kc
  // rows are 56 bytes each), or line t * 16 + q of its pack.
  void prefetchNextAPanel(const Value& ic, const Value& ir, const Value& mc, const Value& pc, const Value& kc,
                          const Value& t, const Value& q, const Value& firstColumns) {
    const Value next = ir + b_.index(MR_), line = t * b_.index(kSegment) + q;
    Value wanted = next < mc;
    if (rowPanels_)
      wanted = wanted & (t < b_.index(MR_)) & (q * b_.index(L_) < kc);
    else
      wanted = wanted & (line < kc * b_.index(PR_ / L_));
    b_.ifThen(wanted, [&] {
      b_.ifThen(firstColumns, [&] {
        if (rowPanels_) return prefetch(A_, b_.min(ic + next + t, M_ - b_.index(1)), pc + q * b_.index(L_), false);
        Value last = b_.min(ic + next + b_.index(MR_ - 1), M_ - b_.index(1));
        prefetch(At_, pc + line, ic + next, false);
        prefetch(At_, pc + line, last, false);
      });
      b_.ifThen(~firstColumns, [&] {
        Value at = rowPanels_ ? (next + t) * b_.index(aStride_) + q * b_.index(L_)
                              : columnPanelAt(next, kc) + line * b_.index(L_);
        prefetch(aPack_, i0_, at, false);
      });
    });
  }

  // [0, end) in steps: over the pool in the parallel build.
  void split(const Value& end, std::int64_t step, const std::function<void(Value)>& body) {
    if (o_.parallel)
      b_.parallelFor(i0_, end, b_.index(step), {}, body);
    else
      b_.forLoop(i0_, end, b_.index(step), body);
  }

  // B[pc:pc+kc, jc:jc+nc] into nv-vector panels (panel jr at jr * kc, rows
  // nv * lanes apart, zero past N). A row-major B is read a row at a time
  // across all panels: panel by panel, each step down a panel's columns
  // jumps a row stride (1024 columns: 4 KiB, a new page), which no hardware
  // prefetcher follows (3.6% of 1024^3 went to it, perf; 2.8% this way).
  void packB(const Value& jc, const Value& pc, const Value& kc, const Value& nc, unsigned nv) {
    const std::int64_t nr = static_cast<std::int64_t>(nv) * L_;
    if (o_.b == MatrixLayout::ColumnMajor)
      return split(nc, nr, [&](Value jr) { packBPanel(jc, pc, kc, jr, nv); });
    // Whole panels load without lane masks; the last one, if partial, reads zero past N.
    Value whole = b_.floordivsi(nc, b_.index(nr)) * b_.index(nr);
    auto rows = [&](const Value& begin, const Value& end) {
      b_.forLoop(begin, end, b_.index(1), [&](Value p) {
        auto copy = [&](const Value& jr, bool masked) {
          for (unsigned v = 0; v < nv; ++v) {
            std::vector<Value> at = {pc + p, jc + jr + b_.index(v * L_)};
            b_.vectorStore(masked ? b_.transferRead(B_, at, L_, zero_) : b_.vectorLoad(B_, at, L_), bPack_,
                           {jr * kc + p * b_.index(nr) + b_.index(v * L_)}, aligned_);
          }
        };
        b_.forLoop(i0_, whole, b_.index(nr), [&](Value jr) { copy(jr, false); });
        b_.ifThen(whole < nc, [&] { copy(whole, true); });
      });
    };
    const std::int64_t rowsPerTask = 16;
    split(kc, rowsPerTask, [&](Value p) { rows(p, b_.min(p + b_.index(rowsPerTask), kc)); });
  }

  // B panel jr: kc rows of NR columns, at jr * kc.
  // A column-major B is copied an element at a time from nv * lanes column
  // pointers (columns past N repeat column N - 1: their lanes are never
  // written), not as a strided read per vector (a gather, as A's was).
  void packBPanel(const Value& jc, const Value& pc, const Value& kc, const Value& jr, unsigned nv) {
    if (o_.b == MatrixLayout::ColumnMajor) {
      const std::int64_t nr = static_cast<std::int64_t>(nv) * L_;
      Value last = N_ - b_.index(1);
      std::vector<Value> cols;
      for (unsigned j = 0; j < nv * L_; ++j) cols.push_back(b_.min(jc + jr + b_.index(j), last));
      // Whole L x L blocks (L columns, L steps of k): L contiguous reads of
      // B's columns, transposed in registers into L rows of the panel.
      // Copied an element at a time, the 64 column pointers of a panel
      // spill: 256^3 with B^T took 354 us against 301 us with B row-major
      // (0.94x OpenBLAS); in blocks, 303 us.
      Value whole = i0_;
      if (L_ >= 4 && (L_ & (L_ - 1)) == 0) {
        whole = b_.floordivsi(kc, b_.index(L_)) * b_.index(L_);
        b_.forLoop(i0_, whole, b_.index(L_), [&](Value p0) {
          for (unsigned g = 0; g < nv; ++g) {
            std::vector<Value> block;
            for (unsigned j = 0; j < L_; ++j) block.push_back(b_.vectorLoad(Bt_, {cols[g * L_ + j], pc + p0}, L_));
            block = transposed(std::move(block));
            for (unsigned q = 0; q < L_; ++q)
              b_.vectorStore(block[q], bPack_, {jr * kc + (p0 + b_.index(q)) * b_.index(nr) + b_.index(g * L_)},
                             aligned_);
          }
        });
      }
      b_.forLoop(whole, kc, b_.index(1), LoopOptions{1, 1, 0}, [&](Value p) {
        Value at = jr * kc + p * b_.index(nr);
        for (unsigned j = 0; j < nv * L_; ++j) b_.store(b_.load(B_, {pc + p, cols[j]}), bPack_, {at + b_.index(j)});
      });
      return;
    }
    b_.forLoop(i0_, kc, b_.index(1), [&](Value p) {
      for (unsigned v = 0; v < nv; ++v)
        b_.vectorStore(b_.transferRead(B_, {pc + p, jc + jr + b_.index(v * L_)}, L_, zero_), bPack_,
                       {jr * kc + p * b_.index(nv * L_) + b_.index(v * L_)}, aligned_);
    });
  }

  // A panel ir. A row-major A: its MR rows (rows past M repeat row M - 1:
  // their sums are never written), each kc long, copied a vector at a time.
  // A column-major A has each column of the panel contiguous: per step of
  // k, one read of PR_ lanes (zero past M) and one aligned store, at
  // columnPanelAt(ir, kc).
  void packAPanel(const Value& ic, const Value& ir, const Value& pc, const Value& kc) {
    if (rowPanels_) {
      Value last = M_ - b_.index(1), whole = b_.floordivsi(kc, b_.index(L_)) * b_.index(L_);
      b_.forLoop(i0_, b_.index(MR_), b_.index(1), [&](Value r) {
        Value row = b_.min(ic + ir + r, last), to = (ir + r) * b_.index(aStride_);
        b_.forLoop(i0_, whole, b_.index(L_), [&](Value p) {
          b_.vectorStore(b_.vectorLoad(A_, {row, pc + p}, L_), aPack_, {to + p}, aligned_);
        });
        b_.ifThen(whole < kc, [&] {  // lanes past kc are never read
          b_.vectorStore(b_.transferRead(A_, {row, pc + whole}, L_, zero_), aPack_, {to + whole}, aligned_);
        });
      });
      return;
    }
    b_.forLoop(i0_, kc, b_.index(1), [&](Value p) {
      b_.vectorStore(b_.transferRead(At_, {pc + p, ic + ir}, PR_, zero_), aPack_,
                     {columnPanelAt(ir, kc) + p * b_.index(PR_)}, aligned_);
    });
  }

  // The last A panel's rows, when few, run a micro-kernel of mr / 2 + 1
  // rows (8 of 14): M = 64 is 4 panels of 14 and one of 8, which the full
  // kernel would pad to 14 (9% of the FMAs on zero rows). 0: none (mr < 4).
  static unsigned edgeRows(unsigned mr) { return mr >= 4 ? mr / 2 + 1 : 0; }

  // One mr x NR block of C (mr <= MR) from packed panels at aOff / bOff.
  // perSegment(q) runs before segment q of the k loop (kSegment steps).
  void microKernel(unsigned mr, const Value& aOff, const Value& bOff, const Value& kc, const Value& row0,
                   const Value& col0, const Value& first, const std::function<void(const Value&)>& perSegment) {
    Value bp0 = bOff, ap0 = aOff;
    // C's tile is fetched twice: the next micro-kernel's into L2, two rows a
    // segment (from L3 or memory), and this one's into L1 before the last
    // kTailDepth steps of k (by its update, L1 has often evicted it: its rows
    // share L1 sets when the row stride is a multiple of 4 KiB). All 42 of
    // the next tile's lines fetched into L1 at once waited for line fill
    // buffers: 2.8% of 1024^3 (perf) went to them.
    auto segment = [&](const Value& q) {
      for (unsigned h = 0; h < 2; ++h) {
        Value row = row0 + b_.min(q * b_.index(2) + b_.index(h), b_.index(mr - 1));
        for (unsigned v = 0; v <= k_.nv; ++v)
          prefetch(C_, row, col0 + b_.index(NR_ + (v < k_.nv ? v * L_ : NR_ - 1)), false);
      }
      perSegment(q);
    };
    auto acc = chain(
        mr, k_.nv, kc,
        [&](unsigned v, const Value& p) {
          Value at = bp0 + p * b_.index(NR_) + b_.index(v * L_);
          if (kBAhead > 0 && (v * L_ * storageSize(t_)) % 64 == 0)
            prefetch(bPack_, i0_, at + b_.index(kBAhead * NR_), false, 3);
          return b_.vectorLoad(bPack_, {at}, L_, aligned_);
        },
        [&](unsigned r, const Value& p) {
          return b_.load(aPack_, {rowPanels_ ? ap0 + b_.index(r * aStride_) + p : ap0 + p * b_.index(PR_) + b_.index(r)});
        },
        [&] { prefetchC(mr, k_.nv, row0, col0); }, segment);
    updateC(mr, k_.nv, acc, row0, col0, first);
  }

  // Starts fetching a tile of C (mr rows of nv vectors) into L1 for writing,
  // so its update after the k loop does not wait on L2/L3: rows of C lie a
  // row stride apart, each a miss of its own. Prefetches past M or N are
  // harmless (they never fault).
  void prefetchC(unsigned mr, unsigned nv, const Value& row0, const Value& col0) {
    for (unsigned r = 0; r < mr; ++r)
      for (unsigned v = 0; v <= nv; ++v)  // the first lane of each vector, and the last lane
        prefetch(C_, row0 + b_.index(r), col0 + b_.index(v < nv ? v * L_ : nv * L_ - 1), true);
  }

  // Fetches the line of m's (row, col) (a row-major view; a 1-D one with
  // row 0) into the caches: for writing into L1, for reading into L2, or
  // into the cache level locality says (3: L1).
  void prefetch(const Value& m, const Value& row, const Value& col, bool write, int locality = -1) {
    llvm::IRBuilderBase& ir = b_.ir();
    llvm::Type* element = t_ == ElementType::F32 ? ir.getFloatTy() : ir.getDoubleTy();
    llvm::Value* base = ir.CreateExtractValue(m.llvm(), {1});
    Value at = field(b_, m, {2}) + row * field(b_, m, {4, 0}) + col;
    llvm::Value* address = ir.CreateGEP(element, base, at.llvm());
    ir.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                       {address, ir.getInt32(write ? 1 : 0), ir.getInt32(locality >= 0 ? locality : write ? 3 : 2),
                        ir.getInt32(1)});
  }

  // C's rows within M, lanes within N: the block sums on the first kc block,
  // added to C after.
  void updateC(unsigned mr, unsigned nv, const std::vector<Value>& acc, const Value& row0, const Value& col0,
               const Value& first) {
    // Four copies: whole tiles (most) need no lane masks, and the first kc
    // block need not read C. Each sums as select(first, sum, sum + C) would.
    auto rows = [&](bool masked, bool add) {
      // C's rows lie a row stride apart, often a multiple of 4 KiB: a load
      // of row r + 1 after the store to row r looks (by its low 12 address
      // bits) as if it read that store and waits for it. So every row is
      // read first (rows past M re-read row M - 1, not written), then written.
      std::vector<Value> sums = acc;
      if (add) {
        Value last = M_ - b_.index(1);
        for (unsigned r = 0; r < mr; ++r) {
          Value row = b_.min(row0 + b_.index(r), last);
          for (unsigned v = 0; v < nv; ++v) {
            Value col = col0 + b_.index(v * L_);
            sums[r * nv + v] = sums[r * nv + v] + (masked ? b_.transferRead(C_, {row, col}, L_, zero_)
                                                          : b_.vectorLoad(C_, {row, col}, L_));
          }
        }
      }
      for (unsigned r = 0; r < mr; ++r) {
        Value row = row0 + b_.index(r);
        b_.ifThen(row < M_, [&] {
          for (unsigned v = 0; v < nv; ++v) {
            Value col = col0 + b_.index(v * L_);
            if (masked)
              b_.transferWrite(sums[r * nv + v], C_, {row, col});
            else
              b_.vectorStore(sums[r * nv + v], C_, {row, col});
          }
        });
      }
    };
    auto byBlock = [&](bool masked) {
      b_.ifElse(
          first, [&] { rows(masked, false); return std::vector<Value>{}; },
          [&] { rows(masked, true); return std::vector<Value>{}; });
    };
    b_.ifElse(
        col0 + b_.index(nv * L_) <= N_, [&] { byBlock(false); return std::vector<Value>{}; },
        [&] { byBlock(true); return std::vector<Value>{}; });
  }

  // The MR x NR accumulators over p in [0, kc), from zero: per p, the NR /
  // lanes B vectors bAt(v, p), then each row's broadcast aAt(r, p) times
  // them (one FMA each), so every accumulator is an in-order chain.
  // beforeTail, when given, runs before the last kTailDepth steps (the
  // loop is split there; the chains continue unchanged).
  template <typename BLoad, typename ALoad>
  std::vector<Value> chain(unsigned mr, unsigned nv, const Value& kc, const BLoad& bAt, const ALoad& aAt,
                           const std::function<void()>& beforeTail = {},
                           const std::function<void(const Value&)>& perSegment = {}) {
    std::vector<Value> init(mr * nv, b_.splat(zero_, L_));
    auto step = [&](Value p, const std::vector<Value>& s) {
      std::vector<Value> bv;
      for (unsigned v = 0; v < nv; ++v) bv.push_back(bAt(v, p));
      std::vector<Value> next(s.size());
      for (unsigned r = 0; r < mr; ++r) {
        Value a = b_.splat(aAt(r, p), L_);
        for (unsigned v = 0; v < nv; ++v) next[r * nv + v] = b_.fma(a, bv[v], s[r * nv + v]);
      }
      return next;
    };
    if (!beforeTail) return b_.forLoop(i0_, kc, b_.index(1), init, LoopOptions{0, 0, 4}, step);
    // With perSegment: the steps in segments of kSegment, perSegment(q) before segment q.
    auto steps = [&](const Value& from, const Value& to, const std::vector<Value>& acc) {
      if (!perSegment) return b_.forLoop(from, to, b_.index(1), acc, LoopOptions{0, 0, 4}, step);
      return b_.forLoop(from, to, b_.index(kSegment), acc, [&](Value s0, const std::vector<Value>& a) {
        perSegment(b_.divsi(s0, b_.index(kSegment)));
        return b_.forLoop(s0, b_.min(s0 + b_.index(kSegment), to), b_.index(1), a, LoopOptions{0, 0, 4}, step);
      });
    };
    Value split = b_.max(i0_, kc - b_.index(kTailDepth));
    auto head = steps(i0_, split, init);
    beforeTail();
    return steps(split, kc, head);
  }
  // The packed k loop's segments (their prefetches spread the next tile's
  // and the next A panel's misses over the loop), and how many steps ahead
  // of its loads it fetches B's panel into L1 (the panel streams from L2;
  // without it the loop's first B load collected the most samples, perf).
  static constexpr std::int64_t kSegment = 16;
  static constexpr std::int64_t kBAhead = 8;
  // How many steps of k before C's update its tile is prefetched into L1:
  // 64 (about 900 cycles of FMAs at MR 14) covers an L2 or L3 hit; 2048 from
  // 0.96-0.98x to 0.97-1.01x OpenBLAS (noisy, loaded machine).
  static constexpr std::int64_t kTailDepth = 64;
  // The largest B the unpacked path reads in place: two thirds of a 48 KiB L1.
  static constexpr std::int64_t kInPlaceBBytes = 32 * 1024;

  FunctionBuilder& b_;
  const Blocking& k_;
  const SgemmOptions& o_;
  const ElementType t_;
  const std::uint32_t L_;
  const std::int64_t MR_, NR_;
  const MemRefType packed_;
  const VectorMemoryOptions aligned_;
  // A row-major A is packed as rows (an mc x aStride_ matrix: contiguous
  // copies, aStride_ = kc rounded up to whole vectors); a column-major A as
  // MR x kc panels, column by column (its columns are contiguous).
  const bool rowPanels_;
  const std::int64_t aStride_;
  // A column-major A's panels hold PR_ (MR rounded up to whole vectors)
  // elements per step of k, so each step's broadcasts read one aligned line
  // (f32, AVX-512) and packing stores one aligned vector: panel ir / MR at
  // columnPanelAt(ir). Rows MR..PR_ - 1 of a step are never read.
  const std::int64_t PR_;
  Value columnPanelAt(const Value& ir, const Value& kc) {
    return b_.divsi(ir, b_.index(MR_)) * (kc * b_.index(PR_));
  }
  Value A_, B_, C_, M_, N_, K_, zero_, i0_;
  Value At_, Bt_, aPack_, bPack_;  // transposedView of A, and of a column-major B
};

}  // namespace

Error addSgemm(Module& m, std::string_view name, const SgemmOptions& o) {
  auto blk = blocking(name, o);
  if (!blk) return blk.error();
  auto view = [&](MatrixLayout l) {
    return MemRefType(o.element, {kDynamic, kDynamic},
                      l == MatrixLayout::RowMajor ? StridedLayout{kDynamic, {kDynamic, 1}}
                                                  : StridedLayout{kDynamic, {1, kDynamic}});
  };
  FunctionOptions fo;
  fo.arguments.assign(3, ArgumentAttributes{true, 0});
  fo.checked = o.checked;
  FunctionBuilder b(m, std::string(name),
                    FunctionType{{view(o.a), view(o.b), view(MatrixLayout::RowMajor)}, {}}, fo);
  SgemmKernel(b, *blk, o).build();
  MEMJIT_TRY(b.finish());
  // Checked mode's shape checks and reports are the blocked body's alone.
  if (!o.checked) detail::addMatmulFirstTierBody(m, std::string(name), o.element, o.a, o.b, blk->kc);
  return Error::success();
}

}  // namespace memjit::codegen
