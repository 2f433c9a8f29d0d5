#include "interpreter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <stdexcept>

#include "float_formats.h"

namespace memjit::difftest {
namespace {

bool isFloatT(ElementType t) { return isFloat(t); }
/// Signless, si and index are signed; ui unsigned (README: "signed or unsigned behaviour comes from the type").
// i1 is unsigned (true is 1) wherever signedness matters, as README says.
bool signedT(ElementType t) { return !isUnsignedInteger(t) && t != ElementType::I1; }
std::uint64_t fromSigned(std::int64_t v, unsigned w) { return static_cast<std::uint64_t>(v) & maskOf(w); }

struct View {
  int buffer = -1;  // 0 io, 1 fm, 2 im, 3... the Allocs'
  std::int64_t offset = 0;
  std::vector<std::int64_t> sizes, strides;
};

struct Trap {
  const char* what;
};

class Interpreter {
 public:
  explicit Interpreter(const Program& p) : p_(p) {
    vals_.resize(p.values.size());
    views_.resize(p.values.size());
    for (const auto& v : p.io) memory_[0].push_back({v, 0, kExact});
    for (const auto& v : p.fm.data) memory_[1].push_back({v, 0, kExact});
    for (const auto& v : p.im.data) memory_[2].push_back({v, 0, kExact});
    views_[kIo] = {0, 0, {static_cast<std::int64_t>(p.io.size())}, {1}};
    views_[kFm] = {1, p.fm.offset, p.fm.sizes, p.fm.strides};
    views_[kIm] = {2, p.im.offset, p.im.sizes, p.im.strides};
    vals_[kH] = {p.h, 0, kExact};
    vals_[kG] = {p.g, 0, kExact};
    vals_[kC] = {p.c, 0, kExact};
    vals_[kD] = {p.d, 0, kExact};
  }

  Outcome run() {
    Outcome o;
    try {
      runBlock(p_.body, {});
    } catch (const Trap& t) {
      o.trap = t.what;
      return o;
    }
    o.outputs.resize(p_.outputs);
    o.outputTypes.resize(p_.outputs, ElementType::I64);
    for (auto& [slot, out] : outputs_) {
      o.outputs[slot] = out.first;
      o.outputTypes[slot] = out.second;
    }
    o.ret = ret_;
    o.values = vals_;
    o.fm = memory_[1];
    o.im = memory_[2];
    if (controlLoose_) {
      for (auto& v : o.outputs) v.flags = kLoose;
      for (auto& v : o.fm) v.flags = kLoose;
      for (auto& v : o.im) v.flags = kLoose;
      o.ret.flags = kLoose;
    }
    return o;
  }

 private:
  void runBlock(const Block& b, const std::vector<Val>& params) {
    for (std::size_t i = 0; i < b.params.size(); ++i) vals_[b.params[i]] = params[i];
    for (const Stmt& s : b.stmts) runStmt(s);
  }
  std::vector<Val> yields(const Block& b) {
    std::vector<Val> r;
    for (int y : b.yields) r.push_back(vals_[y]);
    return r;
  }
  void noteControl(const Val& v) {
    if (v.flags != kExact) controlLoose_ = true;
  }

  void runStmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Assign:
        if (s.op == Op::Load) {
          vals_[s.results[0]] = load(s);
        } else if (s.op == Op::Dim) {
          vals_[s.results[0]] = {static_cast<std::uint64_t>(views_[s.args[0]].sizes[s.imm]), 0, kExact};
        } else if (s.op == Op::Rank) {
          vals_[s.results[0]] = {static_cast<std::uint64_t>(views_[s.args[0]].sizes.size()), 0, kExact};
        } else {
          std::vector<Val> a;
          for (int id : s.args) a.push_back(vals_[id]);
          vals_[s.results[0]] = eval(s, a);
        }
        return;
      case StmtKind::For: {
        const Val lb = vals_[s.args[0]], ub = vals_[s.args[1]], step = vals_[s.args[2]];
        noteControl(lb), noteControl(ub), noteControl(step);
        std::vector<Val> carried;
        for (std::size_t i = 3; i < s.args.size(); ++i) carried.push_back(vals_[s.args[i]]);
        for (std::int64_t iv = static_cast<std::int64_t>(lb.bits); iv < static_cast<std::int64_t>(ub.bits);
             iv += static_cast<std::int64_t>(step.bits)) {
          std::vector<Val> params{{static_cast<std::uint64_t>(iv), 0, kExact}};
          params.insert(params.end(), carried.begin(), carried.end());
          runBlock(s.blocks[0], params);
          carried = yields(s.blocks[0]);
        }
        for (std::size_t i = 0; i < s.results.size(); ++i) vals_[s.results[i]] = carried[i];
        return;
      }
      case StmtKind::ParallelReduce: {
        const Val lb = vals_[s.args[0]], ub = vals_[s.args[1]], step = vals_[s.args[2]];
        noteControl(lb), noteControl(ub), noteControl(step);
        std::vector<Val> acc;
        for (std::size_t i = 3; i < s.args.size(); ++i) acc.push_back(vals_[s.args[i]]);
        if ((s.imm >> 33) & 1) {
          deterministicReduce(s, static_cast<std::int64_t>(lb.bits), static_cast<std::int64_t>(ub.bits),
                              static_cast<std::int64_t>(step.bits), acc);
          for (std::size_t k = 0; k < acc.size(); ++k) vals_[s.results[k]] = acc[k];
          return;
        }
        // Integer combiners are associative and commutative: any chunking gives these values.
        for (std::int64_t iv = static_cast<std::int64_t>(lb.bits); iv < static_cast<std::int64_t>(ub.bits);
             iv += static_cast<std::int64_t>(step.bits)) {
          runBlock(s.blocks[0], {{static_cast<std::uint64_t>(iv), 0, kExact}});
          auto contributions = yields(s.blocks[0]);
          for (std::size_t k = 0; k < acc.size(); ++k) {
            Stmt combine;
            static constexpr Op ops[] = {Op::Add, Op::Mul, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor};
            combine.op = ops[s.reductions[k]];
            combine.type = p_.values[s.results[k]].elem;
            const bool loose = acc[k].flags != kExact || contributions[k].flags != kExact;
            acc[k] = evalInt(combine, {acc[k], contributions[k]}, combine.type);
            if (loose) acc[k].flags = kLoose;
          }
        }
        for (std::size_t k = 0; k < acc.size(); ++k) vals_[s.results[k]] = acc[k];
        return;
      }
      case StmtKind::ParallelFor: {
        // The iterations write disjoint rows that none of them reads: any order gives these values.
        const Val lb = vals_[s.args[0]], ub = vals_[s.args[1]], step = vals_[s.args[2]];
        noteControl(lb), noteControl(ub), noteControl(step);
        for (std::int64_t iv = static_cast<std::int64_t>(lb.bits); iv < static_cast<std::int64_t>(ub.bits);
             iv += static_cast<std::int64_t>(step.bits))
          runBlock(s.blocks[0], {{static_cast<std::uint64_t>(iv), 0, kExact}});
        return;
      }
      case StmtKind::If: {
        const Val c = vals_[s.args[0]];
        noteControl(c);
        const Block& taken = (c.bits & 1) ? s.blocks[0] : s.blocks[1];
        runBlock(taken, {});
        auto r = yields(taken);
        for (std::size_t i = 0; i < s.results.size(); ++i) vals_[s.results[i]] = r[i];
        return;
      }
      case StmtKind::Store: {
        std::int64_t linear;
        Val flags{};
        locate(s, 2, linear, flags);
        View& v = views_[s.args[1]];
        Val value = vals_[s.args[0]];
        if (flags.flags != kExact) controlLoose_ = true;
        memory_[v.buffer][static_cast<std::size_t>(linear)] = value;
        return;
      }
      case StmtKind::Atomic: {
        std::int64_t linear;
        Val flags{};
        locate(s, 2, linear, flags);
        Val& element = memory_[views_[s.args[1]].buffer][static_cast<std::size_t>(linear)];
        const Val old = element;
        element = combineAtomic(static_cast<Stmt::Atomic>(s.imm), old, vals_[s.args[0]],
                                p_.values[s.args[0]].elem);
        if (flags.flags != kExact) controlLoose_ = true;
        if (!s.results.empty()) vals_[s.results[0]] = old;
        return;
      }
      case StmtKind::CompareExchange: {
        std::int64_t linear;
        Val flags{};
        locate(s, 3, linear, flags);
        Val& element = memory_[views_[s.args[2]].buffer][static_cast<std::size_t>(linear)];
        const Val old = element, expected = vals_[s.args[0]];
        // The comparison is of bits (kernel-language.md), so it is determined only when both are; of the type's
        // bits only: a buffer's initial elements carry more (seed 4600000002490 compared them and missed a match).
        Val stored{0, 0, kLoose};
        if (old.flags == kExact && expected.flags == kExact) {
          const std::uint64_t width = maskOf(widthOf(p_.values[s.args[0]].elem));
          stored = Val{((old.bits ^ expected.bits) & width) == 0 ? 1u : 0u, 0, kExact};
          if (stored.bits) element = vals_[s.args[1]];
        } else {
          element = Val{0, 0, kLoose};
        }
        if (flags.flags != kExact) controlLoose_ = true;
        vals_[s.results[0]] = old;
        vals_[s.results[1]] = stored;
        return;
      }
      case StmtKind::GenericAtomic: {
        std::int64_t linear;
        Val flags{};
        locate(s, 1, linear, flags);
        const std::size_t buffer = views_[s.args[0]].buffer;
        const Val old = memory_[buffer][static_cast<std::size_t>(linear)];
        runBlock(s.blocks[0], {old});
        memory_[buffer][static_cast<std::size_t>(linear)] = yields(s.blocks[0])[0];
        if (flags.flags != kExact) controlLoose_ = true;
        vals_[s.results[0]] = old;
        return;
      }
      case StmtKind::ArrayReduce: {
        const Val lb = vals_[s.args[0]], ub = vals_[s.args[1]], step = vals_[s.args[2]];
        noteControl(lb), noteControl(ub), noteControl(step);
        // Each element is its initial value combined with its contributions; integer
        // combiners are associative and commutative, so any chunking gives the same.
        static constexpr Stmt::Atomic kinds[] = {Stmt::AtomicAdd, Stmt::AtomicMul, Stmt::AtomicMinS,
                                                 Stmt::AtomicMaxS};
        const Block& body = s.blocks[0];
        for (std::int64_t iv = static_cast<std::int64_t>(lb.bits); iv < static_cast<std::int64_t>(ub.bits);
             iv += static_cast<std::int64_t>(step.bits)) {
          runBlock(body, {{static_cast<std::uint64_t>(iv), 0, kExact}});
          Stmt at;
          at.args = {body.yields[0], s.args[3]};
          at.args.insert(at.args.end(), body.yields.begin() + 1, body.yields.end());
          std::int64_t linear;
          Val flags{};
          locate(at, 2, linear, flags);
          if (flags.flags != kExact) controlLoose_ = true;
          Val& element = memory_[views_[s.args[3]].buffer][static_cast<std::size_t>(linear)];
          element = combineAtomic(kinds[s.reductions[0]], element, vals_[body.yields[0]], ElementType::I32);
        }
        return;
      }
      case StmtKind::Alloc: {  // a fresh buffer every time it runs (a loop's iterations get distinct ones)
        const std::int64_t rows = s.sizes[0], cols = s.sizes[1];
        memory_.emplace_back(static_cast<std::size_t>(rows * cols), vals_[s.args[0]]);
        views_[s.results[0]] = {static_cast<int>(memory_.size()) - 1, 0, {rows, cols}, {cols, 1}};
        return;
      }
      case StmtKind::MemrefCast:  // the same view (kernel-language.md, "Casting memrefs"), unranked on the way or not
        views_[s.results[0]] = views_[s.args[0]];
        return;
      case StmtKind::Dealloc:  // its buffer's elements are gone: an access after it would index an empty buffer
        memory_[static_cast<std::size_t>(views_[s.args[0]].buffer)] = {};
        return;
      case StmtKind::Subview: {
        const View& src = views_[s.args[0]];
        View v{src.buffer, src.offset, s.sizes, {}};
        for (std::size_t d = 0; d < s.offsets.size(); ++d) {
          v.offset += s.offsets[d] * src.strides[d];
          v.strides.push_back(src.strides[d] * s.strides[d]);
        }
        views_[s.results[0]] = v;
        return;
      }
      case StmtKind::Vector: {
        const auto lanes = static_cast<std::size_t>(s.sizes[0]);
        for (std::size_t k = 0; k < lanes; ++k) {
          Stmt lane = s;
          lane.kind = StmtKind::Assign;
          lane.args.clear();
          for (std::size_t j = 0; j < s.args.size() / lanes; ++j) lane.args.push_back(s.args[j * lanes + k]);
          std::vector<Val> a;
          for (int id : lane.args) a.push_back(vals_[id]);
          vals_[s.results[k]] = eval(lane, a);
        }
        return;
      }
      case StmtKind::Lanes:
        runLanes(s);
        return;
      case StmtKind::Call: {
        // Arguments bound to the parameters, memrefs by their views (the callee writes the caller's buffers).
        const Helper& h = p_.helpers[static_cast<std::size_t>(s.imm)];
        for (std::size_t i = 0; i < h.params.size(); ++i) {
          const int param = h.params[i];
          if (p_.values[param].rank > 0) {
            views_[param] = views_[s.args[i]];
            continue;
          }
          vals_[param] = vals_[s.args[i]];  // halves cross calls with their bits (kernel-language.md)
        }
        runBlock(h.body, {});
        for (std::size_t i = 0; i < s.results.size(); ++i) vals_[s.results[i]] = vals_[h.body.yields[i]];
        return;
      }
      case StmtKind::Output:
        outputs_[static_cast<int>(s.imm)] = {vals_[s.args[0]], p_.values[s.args[0]].elem};
        memory_[0][static_cast<std::size_t>(p_.inputs + static_cast<int>(s.imm))] = vals_[s.args[0]];
        return;
      case StmtKind::Return:
        ret_ = vals_[s.args[0]];
        return;
    }
  }

  void locate(const Stmt& s, std::size_t first, std::int64_t& linear, Val& flags) {
    const View& v = views_[s.args[first - 1]];
    linear = v.offset;
    for (std::size_t d = 0; d < v.sizes.size(); ++d) {
      const Val& ix = vals_[s.args[first + d]];
      if (ix.flags != kExact) flags.flags = kLoose;
      const auto i = static_cast<std::int64_t>(ix.bits);
      if (i < 0 || i >= v.sizes[d]) throw Trap{"out of bounds"};
      linear += i * v.strides[d];
    }
  }

  // docs/vectors.md's semantics of the vector operations beyond lane by lane.
  void runLanes(const Stmt& s) {
    const auto n = static_cast<std::size_t>(s.sizes[0]);
    auto arg = [&](std::size_t i) -> const Val& { return vals_[s.args[i]]; };
    auto lanesAt = [&](std::size_t first) {
      std::vector<Val> r;
      for (std::size_t k = 0; k < n; ++k) r.push_back(arg(first + k));
      return r;
    };
    auto setResults = [&](const std::vector<Val>& r) {
      for (std::size_t k = 0; k < s.results.size(); ++k) vals_[s.results[k]] = r[k];
    };
    switch (s.lane) {
      case LaneOp::Splat: setResults(std::vector<Val>(n, arg(0))); return;
      case LaneOp::Step: {
        std::vector<Val> r;
        for (std::size_t k = 0; k < n; ++k) r.push_back({k, 0, kExact});
        setResults(r);
        return;
      }
      case LaneOp::Insert: {
        auto v = lanesAt(0);
        const Val& lane = arg(n + 1);
        if (lane.flags != kExact) {
          setResults(std::vector<Val>(n, Val{0, 0, kLoose}));
          return;
        }
        v[lane.bits] = arg(n);
        setResults(v);
        return;
      }
      case LaneOp::Extract: {
        const Val& lane = arg(n);
        setResults({lane.flags != kExact ? Val{0, 0, kLoose} : arg(static_cast<std::size_t>(lane.bits))});
        return;
      }
      case LaneOp::Reduce: setResults({reduceLanes(s, lanesAt(0))}); return;
      case LaneOp::Dot: {
        std::vector<Val> args;
        for (int id : s.args) args.push_back(vals_[id]);
        setResults(dotLanes(static_cast<DotKind>(s.imm), n, args));
        return;
      }
      // vectors.md: shuffle picks lane m of a (m < n) or lane m - n of b; interleave is a0 b0 a1 b1 ...;
      // deinterleave gives the even lanes, then the odd ones. Every bit moves unchanged (no lane is arithmetic).
      case LaneOp::Shuffle: {
        std::vector<Val> r;
        for (std::int64_t m : s.offsets) r.push_back(arg(static_cast<std::size_t>(m)));
        setResults(r);
        return;
      }
      case LaneOp::Interleave: {
        std::vector<Val> r;
        for (std::size_t k = 0; k < n; ++k) r.push_back(arg(k)), r.push_back(arg(n + k));
        setResults(r);
        return;
      }
      case LaneOp::Deinterleave: {
        std::vector<Val> r;
        for (std::size_t start : {0, 1})
          for (std::size_t k = start; k < n; k += 2) r.push_back(arg(k));
        setResults(r);
        return;
      }
      default: break;
    }
    // Memory: lane k at m[row, col + k] (or col + offset_k), masked lanes first checked against the last dim.
    const View& view = views_[s.args[0]];
    const Val row = arg(1), col = arg(2);
    bool loose = row.flags != kExact || col.flags != kExact;
    // The row is checked as a scalar access's index is (transfers too: only their last index is masked).
    if (row.bits >= static_cast<std::uint64_t>(view.sizes[0])) throw Trap{"out of bounds"};
    const bool gatherScatter = s.lane == LaneOp::Gather || s.lane == LaneOp::Scatter;
    const bool masked = s.lane != LaneOp::TransferRead && s.lane != LaneOp::TransferWrite &&
                        s.lane != LaneOp::VectorLoad && s.lane != LaneOp::VectorStore;
    const std::size_t maskAt = gatherScatter ? 3 + n : 3;
    std::vector<Val> out;
    std::vector<std::pair<std::size_t, std::int64_t>> writes;  // lane, element
    for (std::size_t k = 0; k < n; ++k) {
      std::int64_t last = static_cast<std::int64_t>(col.bits);
      if (gatherScatter) {
        const Val& o = arg(3 + k);
        loose |= o.flags != kExact;
        last += static_cast<std::int64_t>(o.bits);
      } else {
        last += static_cast<std::int64_t>(k);
      }
      bool active = true;
      if (masked) {
        const Val& m = arg(maskAt + k);
        loose |= m.flags != kExact;
        active = m.bits & 1;
      }
      // The tail guard the lowering ands into the mask (transfers have their own).
      const bool inside = last >= 0 && last < view.sizes[1];
      if (!s.unguarded && (s.lane == LaneOp::MaskedLoad || s.lane == LaneOp::MaskedStore ||
                           s.lane == LaneOp::TransferRead || s.lane == LaneOp::TransferWrite))
        active = active && inside;
      if (active && !inside) throw Trap{"out of bounds"};
      const std::int64_t element =
          view.offset + static_cast<std::int64_t>(row.bits) * view.strides[0] + last * view.strides[1];
      switch (s.lane) {
        case LaneOp::MaskedLoad: case LaneOp::Gather:
          out.push_back(active ? memory_[view.buffer][static_cast<std::size_t>(element)] : arg(maskAt + n + k));
          break;
        case LaneOp::TransferRead:
          out.push_back(active ? memory_[view.buffer][static_cast<std::size_t>(element)] : arg(3));
          break;
        case LaneOp::VectorLoad: out.push_back(memory_[view.buffer][static_cast<std::size_t>(element)]); break;
        default:
          if (active) writes.emplace_back(k, element);
          break;
      }
    }
    if (loose) {
      for (auto& v : out) v.flags = kLoose;
      if (!writes.empty() || s.lane == LaneOp::MaskedStore || s.lane == LaneOp::Scatter ||
          s.lane == LaneOp::TransferWrite || s.lane == LaneOp::VectorStore)
        controlLoose_ = true;
    }
    // Stores lane by lane in order: with repeated scatter offsets the highest lane wins.
    const std::size_t valuesAt = masked ? maskAt + n : 3;
    for (auto [k, element] : writes) memory_[view.buffer][static_cast<std::size_t>(element)] = arg(valuesAt + k);
    setResults(out);
  }

  // FunctionBuilder::dot (builder.h, docs/vectors.md): Intel's vpdpbusd, vpdpwssd and vdpbf16ps. args: n
  // accumulator lanes, then a's and b's g * n lanes each.
  static std::vector<Val> dotLanes(DotKind kind, std::size_t n, const std::vector<Val>& args) {
    for (const Val& x : args)
      if (x.flags != kExact) return std::vector<Val>(n, Val{0, 0, kLoose});
    const std::size_t g = kind == kDotU8S8 ? 4 : 2;
    const auto a = [&](std::size_t j, std::size_t k) { return args[n + g * j + k].bits; };
    const auto b = [&](std::size_t j, std::size_t k) { return args[n + g * n + g * j + k].bits; };
    std::vector<Val> out(n);
    for (std::size_t j = 0; j < n; ++j) {
      if (kind == kDotBF16) {
        // Denormals read as zero; t = fma(a1, b1, acc), then fma(a0, b0, t), each rounded once and a denormal
        // result flushed; a NaN result takes a's NaN, b's, t's (quieted) or the default 0xffc00000.
        const auto flush = [](std::uint32_t x) { return (x & 0x7f800000u) == 0 ? x & 0x80000000u : x; };
        const auto nan = [](std::uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; };
        std::uint32_t t = flush(static_cast<std::uint32_t>(args[j].bits));
        for (std::size_t k : {1, 0}) {
          const std::uint32_t x = flush(static_cast<std::uint32_t>(a(j, k)) << 16);
          const std::uint32_t y = flush(static_cast<std::uint32_t>(b(j, k)) << 16);
          const std::uint32_t r = std::bit_cast<std::uint32_t>(
              std::fma(std::bit_cast<float>(x), std::bit_cast<float>(y), std::bit_cast<float>(t)));
          t = !nan(r) ? flush(r) : nan(x) ? x | 0x400000u : nan(y) ? y | 0x400000u : nan(t) ? t | 0x400000u : 0xffc00000u;
        }
        out[j].bits = t;
        continue;
      }
      std::uint64_t sum = args[j].bits;  // modulo 2^32 below
      for (std::size_t k = 0; k < g; ++k) {
        const std::int64_t x = kind == kDotU8S8 ? static_cast<std::int64_t>(a(j, k) & 0xff) : signExtend(a(j, k), 16);
        const std::int64_t y = signExtend(b(j, k), kind == kDotU8S8 ? 8 : 16);
        sum += static_cast<std::uint64_t>(x * y);
      }
      out[j].bits = sum & 0xffffffffu;
    }
    return out;
  }

  // ParallelOptions::deterministic, as docs/parallel-loops.md#deterministic-reductions documents it: blocks of
  // `chunk` iterations (0: max(1024, ceil(n / 1024))) each folded in order from the combiner's identity, the block
  // partials combined pairwise (stride 1, 2, 4, ...: slot i takes slot i + stride), then init with slot 0; init
  // alone when there is no iteration. A float result is compared bit for bit unless an input was inexact or a
  // min/max met +0 and -0 (either may win).
  void deterministicReduce(const Stmt& s, std::int64_t lb, std::int64_t ub, std::int64_t step, std::vector<Val>& acc) {
    const std::int64_t n = ub > lb ? (ub - lb + step - 1) / step : 0;
    std::int64_t block = static_cast<std::int64_t>(s.imm & 0xffffffff);
    if (block == 0) block = std::max<std::int64_t>(1024, (n + 1023) / 1024);
    static constexpr Op ops[] = {Op::Add, Op::Mul, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor};
    std::vector<bool> loose(acc.size(), false);
    auto combine = [&](std::size_t k, const Val& a, const Val& b) {
      Stmt c;
      c.op = ops[s.reductions[k]];
      c.type = p_.values[s.results[k]].elem;
      if (!isFloatT(c.type)) {
        if (a.flags != kExact || b.flags != kExact) loose[k] = true;
        return evalInt(c, {a, b}, c.type);
      }
      for (const Val* v : {&a, &b})
        if (v->flags != kExact && v->flags != kAnyNaN) loose[k] = true;
      Val r = evalFloat(c, {a, b}, c.type);
      if (r.flags != kExact && r.flags != kAnyNaN) loose[k] = true;
      return r;
    };
    auto identity = [&](std::size_t k) -> Val {
      const ElementType t = p_.values[s.results[k]].elem;
      const bool f64 = t == ElementType::F64;
      const std::uint64_t sign = f64 ? 1ULL << 63 : 1ULL << 31, inf = f64 ? 0x7ffULL << 52 : 0xffULL << 23;
      const std::uint64_t one = f64 ? 0x3ffULL << 52 : 0x7fULL << 23;
      const std::uint64_t w = isFloatT(t) ? 0 : maskOf(widthOf(t));
      switch (s.reductions[k]) {
        case Stmt::Sum: return {isFloatT(t) ? sign : 0, 0, kExact};
        case Stmt::Product: return {isFloatT(t) ? one : 1, 0, kExact};
        case Stmt::Min:
          if (isFloatT(t)) return {inf, 0, kExact};
          return {!isUnsignedInteger(t) ? w >> 1 : w, 0, kExact};
        case Stmt::Max:
          if (isFloatT(t)) return {inf | sign, 0, kExact};
          return {!isUnsignedInteger(t) ? (w >> 1) + 1 : 0, 0, kExact};
        case Stmt::CustomAnd: return {w, 0, kExact};
        default: return {0, 0, kExact};
      }
    };
    std::vector<std::vector<Val>> slots;
    for (std::int64_t first = 0; first < n; first += block) {
      std::vector<Val> part;
      for (std::size_t k = 0; k < acc.size(); ++k) part.push_back(identity(k));
      for (std::int64_t j = first; j < std::min(n, first + block); ++j) {
        runBlock(s.blocks[0], {{static_cast<std::uint64_t>(lb + j * step), 0, kExact}});
        const std::vector<Val> c = yields(s.blocks[0]);
        for (std::size_t k = 0; k < acc.size(); ++k) part[k] = combine(k, part[k], c[k]);
      }
      slots.push_back(std::move(part));
    }
    if (!slots.empty()) {
      for (std::size_t stride = 1; stride < slots.size(); stride *= 2)
        for (std::size_t i = 0; i + stride < slots.size(); i += 2 * stride)
          for (std::size_t k = 0; k < acc.size(); ++k) slots[i][k] = combine(k, slots[i][k], slots[i + stride][k]);
      for (std::size_t k = 0; k < acc.size(); ++k) acc[k] = combine(k, acc[k], slots[0][k]);
    }
    for (std::size_t k = 0; k < acc.size(); ++k)
      if (loose[k]) acc[k] = {acc[k].bits, 0, kLoose};
  }

  // vector.reduction: integers exactly (min/max by the type's signedness), f32/f64 add and mul in lane order,
  // min/max as minnumf/maxnumf (NaN lanes ignored; +0 and -0 either way), minimumf/maximumf propagating NaN.
  Val reduceLanes(const Stmt& s, const std::vector<Val>& v) {
    const ElementType t = s.type;
    for (const Val& x : v)
      if (x.flags != kExact) return {0, 0, kLoose};
    if (!isFloatT(t)) {
      static constexpr Op ops[] = {Op::Add, Op::Mul, Op::Min, Op::Max, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor};
      Stmt combine;
      combine.op = ops[static_cast<int>(s.laneReduction)];
      Val acc = v[0];
      for (std::size_t k = 1; k < v.size(); ++k) acc = evalInt(combine, {acc, v[k]}, t);
      return acc;
    }
    const std::uint64_t sb = signBit(t);
    switch (s.laneReduction) {
      case LaneReduction::Add:
      case LaneReduction::Mul: {
        Stmt combine;
        combine.op = s.laneReduction == LaneReduction::Add ? Op::Add : Op::Mul;
        Val acc = v[0];
        for (std::size_t k = 1; k < v.size(); ++k) {
          acc = evalFloat(combine, {acc, v[k]}, t);
          if (acc.flags == kAnyNaN) return acc;
        }
        return acc;
      }
      case LaneReduction::Min:
      case LaneReduction::Max: {
        const bool isMin = s.laneReduction == LaneReduction::Min;
        std::vector<Val> numbers;
        for (const Val& x : v)
          if (!isNaNBits(t, x.bits)) numbers.push_back(x);
        if (numbers.empty()) return {v[0].bits, 0, kAnyNaN};
        Val best = numbers[0];
        for (const Val& x : numbers) {
          const double a = decodeFloat(t, x.bits), b = decodeFloat(t, best.bits);
          if (isMin ? a < b : a > b) best = x;
        }
        if (decodeFloat(t, best.bits) == 0) {
          bool pos = false, neg = false;
          for (const Val& x : numbers)
            if (decodeFloat(t, x.bits) == 0) (x.bits & sb ? neg : pos) = true;
          if (pos && neg) return {0, sb, kAlt};
        }
        return best;
      }
      case LaneReduction::Minimumf:
      case LaneReduction::Maximumf: {
        const bool isMin = s.laneReduction == LaneReduction::Minimumf;
        for (const Val& x : v)
          if (isNaNBits(t, x.bits)) return {x.bits, 0, kAnyNaN};
        Val best = v[0];
        for (const Val& x : v) {
          const double a = decodeFloat(t, x.bits), b = decodeFloat(t, best.bits);
          const bool aNeg = x.bits & sb, bNeg = best.bits & sb;
          if (a == b && a == 0 ? (isMin ? aNeg && !bNeg : !aNeg && bNeg) : (isMin ? a < b : a > b)) best = x;
        }
        return best;
      }
      default: return {0, 0, kLoose};
    }
  }

  Val load(const Stmt& s) {
    std::int64_t linear;
    Val flags{};
    locate(s, 1, linear, flags);
    const View& v = views_[s.args[0]];
    Val r = memory_[v.buffer][static_cast<std::size_t>(linear)];
    if (flags.flags != kExact) r.flags = kLoose;
    return r;
  }

  // A bf16 denormal may come out as +-0 where the narrowing instruction flushes (README, "Half precision").
  static void makeFlushable(ElementType t, Val& v) {
    if (t == ElementType::BF16 && v.flags == kExact && isDenormalBits(t, v.bits)) {
      v.alt = v.bits & 0x8000;
      v.flags = kAlt;
    }
  }

  Val eval(const Stmt& s, const std::vector<Val>& a);
  // What an atomic update of kind k leaves in an element holding `old` (memref.atomic_rmw's semantics).
  Val combineAtomic(Stmt::Atomic k, const Val& old, const Val& v, ElementType t) {
    if (k == Stmt::AtomicAssign) return v;
    if (old.flags != kExact || v.flags != kExact) return {0, 0, kLoose};
    static constexpr Op ops[] = {Op::Add, Op::And, Op::Or, Op::Xor, Op::Max, Op::Min, Op::Max, Op::Min, Op::Mul,
                                 Op::Const, Op::Add, Op::MaximumF, Op::MinimumF, Op::MaxNumF, Op::MinNumF};
    Stmt combine;
    combine.op = ops[k];
    combine.type = t;
    if (isFloatT(t)) return evalFloat(combine, {old, v}, t);
    // maxu/minu compare unsigned whatever the type says (the difftest's integer memrefs are i32).
    const bool asUnsigned = k == Stmt::AtomicMaxU || k == Stmt::AtomicMinU;
    return evalInt(combine, {old, v}, asUnsigned ? ElementType::UI32 : t);
  }
  Val evalFloat(const Stmt& s, const std::vector<Val>& a, ElementType t);
  Val evalInt(const Stmt& s, const std::vector<Val>& a, ElementType t);
  Val evalCast(const Stmt& s, const Val& x, ElementType from, ElementType to);

  const Program& p_;
  std::vector<Val> vals_;
  std::vector<View> views_;
  std::vector<std::vector<Val>> memory_ = std::vector<std::vector<Val>>(3);  // io, fm, im, then each Alloc's
  std::map<int, std::pair<Val, ElementType>> outputs_;
  Val ret_;
  bool controlLoose_ = false;
};

Val Interpreter::eval(const Stmt& s, const std::vector<Val>& a) {
  if (s.op == Op::Const) return {s.imm, 0, kExact};
  // Anything computed from a value with a tolerance is no longer determined.
  const bool anyLoose = std::any_of(a.begin(), a.end(), [](const Val& v) { return v.flags != kExact; });
  const ElementType operandType = s.args.empty() ? s.type : p_.values[s.args[s.op == Op::Select ? 1 : 0]].elem;
  // Division by a determined zero stops checked mode whatever the dividend (seed 3800000012183 divided a
  // loose value by the deliberate 0, and the interpreter returned "not determined" instead of the trap).
  if (s.op >= Op::Div && s.op <= Op::FloorDivSI && !isFloatT(operandType) && a.size() > 1 &&
      a[1].flags == kExact && (a[1].bits & maskOf(widthOf(operandType))) == 0)
    throw Trap{"by zero"};
  if (anyLoose) {
    // "Some NaN" is still a NaN: what an op makes of it is determined unless
    // the op reads its sign or payload (bitcast, copysign's sign operand).
    // Tainting every result computed from a NaN hid most float values from the
    // comparison (the mutation score's wrong minimumf and fma went unseen).
    const bool nanOnly = std::all_of(a.begin(), a.end(), [](const Val& v) { return v.flags == kExact || v.flags == kAnyNaN; });
    const bool readsNaNBits = s.op == Op::Bitcast || (s.op == Op::CopySign && a[1].flags == kAnyNaN);
    if (!nanOnly || readsNaNBits) return {0, 0, kLoose};
  }
  if (s.op == Op::Select) {
    return (a[0].bits & 1) ? a[1] : a[2];
  }
  if (s.op == Op::Cast) return evalCast(s, a[0], operandType, s.type);
  if (s.op == Op::Bitcast) {
    return {a[0].bits, 0, a[0].flags == kAnyNaN ? kLoose : kExact};
  }
  if (isFloatT(operandType)) return evalFloat(s, a, operandType);
  return evalInt(s, a, operandType);
}

Val Interpreter::evalCast(const Stmt&, const Val& x, ElementType from, ElementType to) {
  const bool intFrom = !isFloatT(from), intTo = !isFloatT(to);
  const unsigned wf = widthOf(from), wt = widthOf(to);
  const bool srcSigned = signedT(from);
  if (intFrom && intTo) {
    const std::uint64_t v = srcSigned ? static_cast<std::uint64_t>(signExtend(x.bits, wf)) : (x.bits & maskOf(wf));
    return {v & maskOf(wt), 0, kExact};
  }
  if (intFrom) {
    const std::int64_t sv = signExtend(x.bits, wf);
    const bool negative = srcSigned && sv < 0;
    const std::uint64_t magnitude =
        negative ? (0 - static_cast<std::uint64_t>(sv)) : (srcSigned ? static_cast<std::uint64_t>(sv) : x.bits & maskOf(wf));
    Val r{roundIntegerToFloat(to, magnitude, negative), 0, kExact};
    makeFlushable(to, r);
    return r;
  }
  const double d = decodeFloat(from, x.bits);
  if (intTo) {  // saturating (README, "Casts"): NaN gives 0, a value beyond the type its nearest bound
    const double t = std::trunc(d);
    if (std::isnan(d)) return {0, 0, kExact};
    if (isUnsignedInteger(to) || to == ElementType::I1) {  // i1 converts as unsigned (1.0 is true)
      if (t <= 0) return {0, 0, kExact};
      if (t >= std::ldexp(1.0, static_cast<int>(wt))) return {maskOf(wt), 0, kExact};
      return {static_cast<std::uint64_t>(t), 0, kExact};
    }
    const double top = std::ldexp(1.0, static_cast<int>(wt) - 1);
    if (t >= top) return {maskOf(wt) >> 1, 0, kExact};
    if (t < -top) return {(1ULL << (wt - 1)) & maskOf(wt), 0, kExact};
    return {fromSigned(static_cast<std::int64_t>(t), wt), 0, kExact};
  }
  if (std::isnan(d)) return {roundToFloat(to, d), 0, kAnyNaN};
  Val r{roundToFloat(to, d), 0, kExact};
  if (widthOf(to) < widthOf(from) || (from == ElementType::F16 && to == ElementType::BF16)) makeFlushable(to, r);
  // vcvtneps2bf16 reads an f32 denormal as zero: one that rounds up to bf16's smallest normal may give +-0 too
  // (kernel-language.md, "Half precision").
  if (to == ElementType::BF16 && r.flags == kExact && d != 0 && std::fabs(d) < std::ldexp(1.0, -126)) {
    r.alt = r.bits & 0x8000;
    r.flags = kAlt;
  }
  return r;
}

Val Interpreter::evalFloat(const Stmt& s, const std::vector<Val>& a, ElementType t) {
  const std::uint64_t sb = signBit(t);
  auto x = [&](std::size_t i) { return decodeFloat(t, a[i].bits); };
  auto nanOf = [&](std::size_t i) { return isNaNBits(t, a[i].bits); };
  // Sign-bit operations keep every other bit (negf, absf, copysign are bit operations).
  if (s.op == Op::Neg || s.op == Op::Abs || s.op == Op::CopySign) {
    std::uint64_t bits = s.op == Op::Neg ? a[0].bits ^ sb
                         : s.op == Op::Abs ? a[0].bits & ~sb
                                           : (a[0].bits & ~sb) | (a[1].bits & sb);
    return {bits, 0, a[0].flags == kAnyNaN ? kAnyNaN : kExact};
  }
  if (s.op == Op::Cmp) {
    const double l = x(0), r = x(1);
    bool v = false;
    switch (static_cast<int>(s.imm)) {
      case 0: v = l == r; break;
      case 1: v = l != r; break;  // une: true with NaN
      case 2: v = l < r; break;
      case 3: v = l <= r; break;
      case 4: v = l > r; break;
      case 5: v = l >= r; break;
    }
    return {v ? 1ULL : 0ULL, 0, kExact};
  }
  double r = 0;
  bool transcendental = isTranscendental(s.op);
  auto viaF32 = [&](float (*f32)(float), double (*f64)(double)) {
    if (t == ElementType::F64) return f64(x(0));
    return static_cast<double>(f32(static_cast<float>(x(0))));
  };
  auto viaF32b = [&](float (*f32)(float, float), double (*f64)(double, double)) {
    if (t == ElementType::F64) return f64(x(0), x(1));
    return static_cast<double>(f32(static_cast<float>(x(0)), static_cast<float>(x(1))));
  };
  switch (s.op) {
    case Op::Add: r = x(0) + x(1); break;
    case Op::Sub: r = x(0) - x(1); break;
    case Op::Mul: r = x(0) * x(1); break;
    case Op::Div: r = x(0) / x(1); break;
    case Op::Rem: r = std::fmod(x(0), x(1)); break;
    case Op::Sqrt: r = std::sqrt(x(0)); break;
    case Op::Rsqrt:
      // Halves: in f64, rounded once to the half (README); f32 in f32.
      if (t == ElementType::F32) r = 1.0f / std::sqrt(static_cast<float>(x(0)));
      else r = 1.0 / std::sqrt(x(0));
      break;
    case Op::Fma:
      if (t == ElementType::F32) r = std::fma(static_cast<float>(x(0)), static_cast<float>(x(1)), static_cast<float>(x(2)));
      else r = std::fma(x(0), x(1), x(2));
      break;
    case Op::Min:
    case Op::MinNumF:
    case Op::Max:
    case Op::MaxNumF: {
      const bool isMin = s.op == Op::Min || s.op == Op::MinNumF;
      if (nanOf(0) && nanOf(1)) return {a[0].bits, 0, kAnyNaN};
      // The other operand, computed like any min/max: a bf16 denormal may be flushed there too.
      if (nanOf(0) || nanOf(1)) {
        Val other = a[nanOf(0) ? 1 : 0];
        makeFlushable(t, other);
        return other;
      }
      const double l = x(0), rr = x(1);
      if (!nanOf(0) && !nanOf(1) && l == 0 && rr == 0 && a[0].bits != a[1].bits) return {a[0].bits, a[1].bits, kAlt};
      // bf16 min/max compute in f32 and narrow: a denormal may be flushed (README, "Half precision"), also when
      // the other operand is a NaN (found by this tester: minnumf(NaN, 0x007f) gives +0 at O0).
      Val r = nanOf(0) ? a[1] : nanOf(1) ? a[0] : (isMin ? l < rr : l > rr) ? a[0] : (l == rr ? a[0] : a[1]);
      makeFlushable(t, r);
      return r;
    }
    case Op::MinimumF:
    case Op::MaximumF: {
      const bool isMin = s.op == Op::MinimumF;
      if (nanOf(0) || nanOf(1)) return {a[nanOf(0) ? 0 : 1].bits, 0, kAnyNaN};
      const double l = x(0), rr = x(1);
      if (l == 0 && rr == 0) {  // -0 < +0
        const bool lNeg = a[0].bits & sb, rNeg = a[1].bits & sb;
        return (isMin ? (lNeg || !rNeg) : (!lNeg || rNeg)) ? a[0] : a[1];
      }
      Val r = (isMin ? l <= rr : l >= rr) ? a[0] : a[1];
      makeFlushable(t, r);
      return r;
    }
    case Op::Floor: r = std::floor(x(0)); break;
    case Op::Ceil: r = std::ceil(x(0)); break;
    case Op::Trunc: r = std::trunc(x(0)); break;
    case Op::Round: r = std::round(x(0)); break;
    case Op::RoundEven: {
      const double v = x(0), f = std::floor(v), d = v - f;
      r = d > 0.5 ? f + 1 : d < 0.5 ? f : (std::fmod(f, 2.0) == 0 ? f : f + 1);
      if (r == 0 || std::isinf(v) || std::isnan(v)) r = std::isnan(v) ? v : std::copysign(std::isinf(v) ? v : 0.0, v);
      break;
    }
    case Op::Cbrt: r = viaF32(std::cbrt, std::cbrt); break;
    case Op::Exp: r = viaF32(std::exp, std::exp); break;
    case Op::Exp2: r = viaF32(std::exp2, std::exp2); break;
    case Op::Expm1: r = viaF32(std::expm1, std::expm1); break;
    case Op::Log: r = viaF32(std::log, std::log); break;
    case Op::Log2: r = viaF32(std::log2, std::log2); break;
    case Op::Log10: r = viaF32(std::log10, std::log10); break;
    case Op::Log1p: r = viaF32(std::log1p, std::log1p); break;
    case Op::Sin: r = viaF32(std::sin, std::sin); break;
    case Op::Cos: r = viaF32(std::cos, std::cos); break;
    case Op::Tan: r = viaF32(std::tan, std::tan); break;
    case Op::Asin: r = viaF32(std::asin, std::asin); break;
    case Op::Acos: r = viaF32(std::acos, std::acos); break;
    case Op::Atan: r = viaF32(std::atan, std::atan); break;
    case Op::Sinh: r = viaF32(std::sinh, std::sinh); break;
    case Op::Cosh: r = viaF32(std::cosh, std::cosh); break;
    case Op::Tanh: r = viaF32(std::tanh, std::tanh); break;
    case Op::Erf: r = viaF32(std::erf, std::erf); break;
    case Op::Erfc: r = viaF32(std::erfc, std::erfc); break;
    case Op::Pow:
      // pow(x, +-0) = 1 and pow(1, y) = 1, NaNs included (kernel-language.md; glibc's pow, which the line
      // below calls, gives NaN for a signalling NaN there: seed 3800000015384 took 1 for a wrong answer).
      if (x(1) == 0 || x(0) == 1) return {roundToFloat(t, 1.0), 0, kExact};
      [[fallthrough]];
    case Op::Atan2:
      r = s.op == Op::Pow ? viaF32b(std::pow, std::pow) : viaF32b(std::atan2, std::atan2);
      break;
    case Op::Powi: {
      const auto n = static_cast<double>(signExtend(a[1].bits, 32));
      // x^0 = 1 for every x, NaNs included, as README says of pow (glibc's pow gives NaN for a signalling NaN).
      r = n == 0 ? 1.0 : std::pow(x(0), n);  // n exact in double (in float, 2^31 - 1 would become even)
      // A negative n is 1 / x^|n| with the power computed in the type (libgcc's __powi*f2, LLVM's expansion;
      // kernel-language.md): where x^|n| overflows or is denormal there, the result is +-0 or inexact.
      if (n < 0 && !std::isnan(r)) {
        const ElementType in = t == ElementType::F16 || t == ElementType::BF16 ? ElementType::F32 : t;  // halves: f32
        const std::uint64_t power = roundToFloat(in, std::pow(x(0), -n));
        if (isDenormalBits(in, power) || (power & ~signBit(in)) == 0 || std::isinf(decodeFloat(in, power)))
          return Val{roundToFloat(t, r), 0, kLoose};
      }
      break;
    }
    default: throw std::logic_error(std::string("difftest interpreter: float op ") + opName(s.op));
  }
  Val v{roundToFloat(t, r), 0, kExact};
  if (std::isnan(r)) {
    v.flags = kAnyNaN;
    return v;
  }
  if (transcendental) {
    // README: libmvec (vectorised loops) is within 4 ulp of the exact result and
    // scalar libm within 1-2, so the two may be 6 apart; powi multiplies in an
    // unspecified order.
    v.alt = s.op == Op::Powi ? 64 : 8;
    v.flags = kUlp;
    return v;
  }
  // A bf16 result computed in f32 and narrowed by vcvtneps2bf16 may be flushed (kernel-language.md,
  // "Half precision"): the one tolerance left, a documented target behaviour. Rounding to an integer
  // never gives a denormal.
  makeFlushable(t, v);
  return v;
}

Val Interpreter::evalInt(const Stmt& s, const std::vector<Val>& a, ElementType t) {
  const unsigned w = widthOf(t);
  const std::uint64_t m = maskOf(w);
  const bool sg = signedT(t);
  const std::uint64_t ua = a.size() > 0 ? a[0].bits & m : 0, ub = a.size() > 1 ? a[1].bits & m : 0;
  const std::int64_t sa = signExtend(ua, w), sb = signExtend(ub, w);
  auto ok = [&](std::uint64_t v) { return Val{v & m, 0, kExact}; };
  // What checked mode stops at (the generator guards every other division).
  if (s.op >= Op::Div && s.op <= Op::FloorDivSI) {
    if (ub == 0) throw Trap{"by zero"};
    const bool signedOp = s.op == Op::DivSI || s.op == Op::RemSI || s.op == Op::CeilDivSI || s.op == Op::FloorDivSI ||
                          ((s.op == Op::Div || s.op == Op::Rem) && sg);
    // On i1 that is divsi(true, true): true is -1 and the minimum.
    if (signedOp && ua == (1ULL << (w - 1)) && ub == m) throw Trap{"overflow"};
  }
  auto udiv = [&](std::uint64_t x, std::uint64_t y) { return y ? x / y : 0; };
  auto sdiv = [&](std::int64_t x, std::int64_t y) -> std::int64_t {
    if (y == 0) return 0;
    if (y == -1) return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(x));
    return x / y;
  };
  auto srem = [&](std::int64_t x, std::int64_t y) -> std::int64_t { return (y == 0 || y == -1) ? 0 : x % y; };
  switch (s.op) {
    case Op::Add: return ok(ua + ub);
    case Op::Sub: return ok(ua - ub);
    case Op::Mul: return ok(ua * ub);
    case Op::Div: return ok(sg ? static_cast<std::uint64_t>(sdiv(sa, sb)) : udiv(ua, ub));
    case Op::Rem: return ok(sg ? static_cast<std::uint64_t>(srem(sa, sb)) : (ub ? ua % ub : 0));
    case Op::DivSI: return ok(static_cast<std::uint64_t>(sdiv(sa, sb)));
    case Op::DivUI: return ok(udiv(ua, ub));
    case Op::RemSI: return ok(static_cast<std::uint64_t>(srem(sa, sb)));
    case Op::RemUI: return ok(ub ? ua % ub : 0);
    case Op::CeilDivSI: {
      const std::int64_t q = sdiv(sa, sb), r = srem(sa, sb);
      return ok(static_cast<std::uint64_t>(q + ((r != 0 && ((r < 0) == (sb < 0))) ? 1 : 0)));
    }
    case Op::FloorDivSI: {
      const std::int64_t q = sdiv(sa, sb), r = srem(sa, sb);
      return ok(static_cast<std::uint64_t>(q - ((r != 0 && ((r < 0) != (sb < 0))) ? 1 : 0)));
    }
    case Op::CeilDivUI: return ok(udiv(ua, ub) + ((ub && ua % ub) ? 1 : 0));
    case Op::MulHi: {
      if (sg) {
        const __int128 p = static_cast<__int128>(sa) * sb;
        return ok(static_cast<std::uint64_t>(static_cast<unsigned __int128>(p >> w)));
      }
      const unsigned __int128 p = static_cast<unsigned __int128>(ua) * ub;
      return ok(static_cast<std::uint64_t>(p >> w));
    }
    case Op::Neg: return ok(0 - ua);
    case Op::And: return ok(ua & ub);
    case Op::Or: return ok(ua | ub);
    case Op::Xor: return ok(ua ^ ub);
    case Op::Not: return ok(~ua);
    case Op::Shl: return ok(ub >= w ? 0 : ua << ub);
    case Op::Shr:
    case Op::ShrSI:
    case Op::ShrUI: {
      const bool arithmetic = s.op == Op::ShrSI || (s.op == Op::Shr && sg);
      if (arithmetic) return ok(static_cast<std::uint64_t>(sa >> (ub >= w ? 63 : ub)));
      return ok(ub >= w ? 0 : ua >> ub);
    }
    case Op::RotL:
    case Op::RotR: {
      const unsigned n = static_cast<unsigned>(ub % w);
      if (n == 0) return ok(ua);
      const bool left = s.op == Op::RotL;
      return ok(left ? (ua << n) | (ua >> (w - n)) : (ua >> n) | (ua << (w - n)));
    }
    case Op::CtPop: return ok(static_cast<std::uint64_t>(std::popcount(ua)));
    case Op::CtLz: return ok(static_cast<std::uint64_t>(std::countl_zero(ua) - (64 - static_cast<int>(w))));
    case Op::CtTz: return ok(ua == 0 ? w : static_cast<std::uint64_t>(std::countr_zero(ua)));
    case Op::Min: return ok(sg ? static_cast<std::uint64_t>(std::min(sa, sb)) : std::min(ua, ub));
    case Op::Max: return ok(sg ? static_cast<std::uint64_t>(std::max(sa, sb)) : std::max(ua, ub));
    case Op::Abs: return ok(sg ? (sa < 0 ? 0 - ua : ua) : ua);
    case Op::Cmp: {
      bool v = false;
      switch (static_cast<int>(s.imm)) {
        case 0: v = ua == ub; break;
        case 1: v = ua != ub; break;
        case 2: v = sg ? sa < sb : ua < ub; break;
        case 3: v = sg ? sa <= sb : ua <= ub; break;
        case 4: v = sg ? sa > sb : ua > ub; break;
        case 5: v = sg ? sa >= sb : ua >= ub; break;
      }
      return {v ? 1ULL : 0ULL, 0, kExact};
    }
    default: throw std::logic_error(std::string("difftest interpreter: integer op ") + opName(s.op));
  }
}

}  // namespace

Outcome interpret(const Program& p) { return Interpreter(p).run(); }

std::uint64_t outputBits(ElementType t, std::uint64_t bits) {
  const unsigned w = widthOf(t);
  if (w >= 64) return bits;
  if (t == ElementType::I1 || isUnsignedInteger(t)) return bits & maskOf(w);
  return static_cast<std::uint64_t>(signExtend(bits, w));
}

}  // namespace memjit::difftest
