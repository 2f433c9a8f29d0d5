// The builder's vector operations (builder.h, "vectors"): every lifted scalar
// operation against the same operation applied lane by lane in a scalar loop
// (bit for bit, on edge values), reductions against a scalar fold, shuffles
// and lane access against C++, the memory operations with every mask pattern
// and tail, gathers/scatters with repeated and out-of-order offsets, checked
// mode naming the lane out of bounds, and the errors.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/vector_target.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"
#include "support/call_jit.h"
#include "support/jit.h"
#include "support/views.h"

namespace memjit::codegen {
namespace {

using test::V1;
using test::view;

using Compiled = test::CompiledModule;
Compiled compile(Module m) { return test::compileModule(std::move(m)); }

MemRefType vec(ElementType t) { return MemRefType(t, {kDynamic}); }

using Op = std::function<Value(FunctionBuilder&, const std::vector<Value>&)>;

// Adds `name_v` and `name_s`, both (memref<?xT> x arity, memref<?xR>) -> ():
// the first applies `op` to vectors of `lanes` lanes, the second to scalars
// in a loop; n must be a multiple of lanes.
void addLifted(Module& m, const std::string& name, ElementType t, ElementType r, unsigned arity, std::uint32_t lanes,
               const Op& op) {
  std::vector<Type> inputs(arity, vec(t));
  inputs.push_back(vec(r));
  for (bool vector : {true, false}) {
    FunctionBuilder b(m, name + (vector ? "_v" : "_s"), FunctionType{inputs, {}});
    Value out = b.arg(arity);
    b.forLoop(b.index(0), b.dim(out, 0), b.index(vector ? lanes : 1), [&](Value i) {
      std::vector<Value> args;
      for (unsigned k = 0; k < arity; ++k) args.push_back(vector ? b.vectorLoad(b.arg(k), {i}, lanes) : b.load(b.arg(k), {i}));
      Value result = op(b, args);
      if (vector) {
        EXPECT_TRUE(!result.valid() || result.isVector());
        b.vectorStore(result, out, {i});
      } else {
        b.store(result, out, {i});
      }
    });
    ASSERT_FALSE(b.finish()) << name << ": " << b.error().str();
  }
}

// The n-element inputs: every pair of edge values, laid out so lane k of
// operand 0 meets each value of operand 1.
template <typename T>
std::vector<std::vector<T>> inputs(const std::vector<T>& edges, unsigned arity, std::size_t lanes) {
  std::vector<std::vector<T>> in(arity);
  std::size_t n = 1;
  for (unsigned k = 0; k < arity; ++k) n *= edges.size();
  n = (n + lanes - 1) / lanes * lanes;
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t x = i;
    for (unsigned k = 0; k < arity; ++k) {
      in[k].push_back(edges[x % edges.size()]);
      x /= edges.size();
    }
  }
  return in;
}

template <typename T>
std::vector<T> floatEdges() {
  const T inf = std::numeric_limits<T>::infinity();
  return {T(0), T(-0.0), T(1), T(-1.5), T(2.75), T(1e-3), inf, -inf, std::numeric_limits<T>::quiet_NaN(),
          std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::max(), T(3)};
}
template <typename T>
std::vector<T> intEdges() {
  using L = std::numeric_limits<T>;
  std::vector<T> e{T(0), T(1), T(2), T(3), T(7), L::max(), L::min(), T(L::max() / 3)};
  if constexpr (std::is_signed_v<T>) e.insert(e.end(), {T(-1), T(-2), T(-7)});
  e.push_back(T(sizeof(T) * 8 - 1));  // shift counts at and around the width
  e.push_back(T(sizeof(T) * 8));
  e.push_back(T(sizeof(T) * 8 + 1));
  return e;
}

struct Case {
  const char* name;
  unsigned arity;
  Op op;
  bool resultIsInput = true;  // else the result is i32 (a compare through select)
  // Vector math functions may come from a vector math library (jit/vector_math.h)
  // whose results differ from libm's in the last bits: compared within ulps.
  int ulps = 0;
};

template <typename T>
bool withinUlps(T x, T y, int ulps) {
  if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
  if (std::isinf(x) || std::isinf(y) || x == y) return x == y;
  return std::abs(x - y) <= ulps * std::max(std::abs(x), std::abs(y)) * std::numeric_limits<T>::epsilon();
}

template <typename T, typename R = T>
void runCases(ElementType t, const std::vector<T>& edges, const std::vector<Case>& cases) {
  const std::uint32_t lanes = std::max<std::uint32_t>(2, VectorTarget::host().lanes(t));
  Module m("lifted");
  for (const Case& c : cases)
    addLifted(m, c.name, t, c.resultIsInput ? t : ElementType::I32, c.arity, lanes, c.op);
  Compiled k = compile(std::move(m));
  ASSERT_TRUE(k.mod);
  for (const Case& c : cases) {
    auto in = inputs(edges, c.arity, lanes);
    const std::size_t n = in[0].size();
    auto run = [&](const std::string& fn, auto* sample) {
      using Out = std::remove_pointer_t<decltype(sample)>;
      std::vector<Out> out(n);
      std::vector<V1<T>> views;
      for (auto& v : in) views.push_back(view(v));
      auto o = view(out);
      void* f = k.get(fn);
      if (!f) return out;
      switch (c.arity) {
        case 1: test::callJit<void(V1<T>*, V1<Out>*)>(f, &views[0], &o); break;
        case 2: test::callJit<void(V1<T>*, V1<T>*, V1<Out>*)>(f, &views[0], &views[1], &o); break;
        default: test::callJit<void(V1<T>*, V1<T>*, V1<T>*, V1<Out>*)>(f, &views[0], &views[1], &views[2], &o);
      }
      return out;
    };
    auto compare = [&](auto* sample) {
      auto v = run(std::string(c.name) + "_v", sample);
      auto s = run(std::string(c.name) + "_s", sample);
      for (std::size_t i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<std::remove_pointer_t<decltype(sample)>>)
          if (c.ulps) {
            ASSERT_TRUE(withinUlps(v[i], s[i], c.ulps))
                << c.name << " on " << toString(t) << " at element " << i << ": " << v[i] << " vs " << s[i];
            continue;
          }
        ASSERT_EQ(std::memcmp(&v[i], &s[i], sizeof v[i]), 0)
            << c.name << " on " << toString(t) << " differs at element " << i;
      }
    };
    if (c.resultIsInput)
      compare(static_cast<T*>(nullptr));
    else
      compare(static_cast<std::int32_t*>(nullptr));
  }
}

Value a0(const std::vector<Value>& v) { return v[0]; }
Value a1(const std::vector<Value>& v) { return v[1]; }
Value a2(const std::vector<Value>& v) { return v[2]; }

// Compares through select to i32 (vectors of i1 do not move to memory).
Op compare(CmpPredicate p) {
  return [p](FunctionBuilder& b, const std::vector<Value>& v) {
    Value c = b.cmp(p, a0(v), a1(v));
    Value one = b.i32(1), zero = b.i32(0);
    return c.isVector() ? b.select(c, b.splat(one, c.lanes()), b.splat(zero, c.lanes())) : b.select(c, one, zero);
  };
}

std::vector<Case> floatCases() {
  using B = FunctionBuilder;
  using A = const std::vector<Value>&;
  std::vector<Case> c = {
      {"add", 2, [](B&, A v) { return a0(v) + a1(v); }},
      {"sub", 2, [](B&, A v) { return a0(v) - a1(v); }},
      {"mul", 2, [](B&, A v) { return a0(v) * a1(v); }},
      {"div", 2, [](B&, A v) { return a0(v) / a1(v); }},
      {"rem", 2, [](B&, A v) { return a0(v) % a1(v); }},
      {"neg", 1, [](B&, A v) { return -a0(v); }},
      {"literal", 1, [](B&, A v) { return a0(v) * 2.0 + 1; }},
      {"min", 2, [](B& b, A v) { return b.min(a0(v), a1(v)); }},
      {"maximumf", 2, [](B& b, A v) { return b.maximumf(a0(v), a1(v)); }},
      {"minimumf", 2, [](B& b, A v) { return b.minimumf(a0(v), a1(v)); }},
      {"copysign", 2, [](B& b, A v) { return b.copysign(a0(v), a1(v)); }},
      {"pow", 2, [](B& b, A v) { return b.pow(a0(v), a1(v)); }, true, 4},
      {"atan2", 2, [](B& b, A v) { return b.atan2(a0(v), a1(v)); }},  // libm, once per lane
      {"fma", 3, [](B& b, A v) { return b.fma(a0(v), a1(v), a2(v)); }},
      {"abs", 1, [](B& b, A v) { return b.abs(a0(v)); }},
      {"sqrt", 1, [](B& b, A v) { return b.sqrt(a0(v)); }},
      {"rsqrt", 1, [](B& b, A v) { return b.rsqrt(a0(v)); }},
      {"exp", 1, [](B& b, A v) { return b.exp(a0(v)); }, true, 4},
      {"tanh", 1, [](B& b, A v) { return b.tanh(a0(v)); }, true, 4},  // libmvec's tanhf where vectorised
      {"floor", 1, [](B& b, A v) { return b.floor(a0(v)); }},
      {"roundeven", 1, [](B& b, A v) { return b.roundeven(a0(v)); }},
      {"powi", 1, [](B& b, A v) { return b.powi(a0(v), 3); }},
      {"select", 3, [](B& b, A v) { return b.select(a0(v) < a1(v), a1(v), a2(v)); }},
      {"eq", 2, compare(CmpPredicate::Eq), false},
      {"ne", 2, compare(CmpPredicate::Ne), false},
      {"lt", 2, compare(CmpPredicate::Lt), false},
      {"ge", 2, compare(CmpPredicate::Ge), false},
      {"to_i32", 1,
       [](B& b, A v) {  // in range only: out-of-range float to int is undefined
         Value x = b.min(b.max(a0(v), b.constantLike(a0(v), -1000)), b.constantLike(a0(v), 1000));
         return b.cast(b.cast(x, ElementType::I32), std::get<ElementType>(a0(v).type()));
       }},
      {"to_bf16", 1,
       [](B& b, A v) { return b.cast(b.cast(a0(v), ElementType::BF16), std::get<ElementType>(a0(v).type())); }},
  };
  return c;
}

TEST(VectorLifted, FloatOpsMatchScalarLoopsF32) { runCases<float>(ElementType::F32, floatEdges<float>(), floatCases()); }
TEST(VectorLifted, FloatOpsMatchScalarLoopsF64) {
  runCases<double>(ElementType::F64, floatEdges<double>(), floatCases());
}

template <typename T>
std::vector<Case> integerCases(ElementType t) {
  using B = FunctionBuilder;
  using A = const std::vector<Value>&;
  // Division by zero and INT_MIN / -1 are undefined: divisors are forced odd
  // and positive (|b| | 1, then the sign bit cleared).
  auto safe = [](B& b, const Value& d) {
    Value odd = d | 1;
    return odd & b.constantLike(d, std::numeric_limits<T>::max());
  };
  std::vector<Case> c = {
      {"add", 2, [](B&, A v) { return a0(v) + a1(v); }},
      {"sub", 2, [](B&, A v) { return a0(v) - a1(v); }},
      {"mul", 2, [](B&, A v) { return a0(v) * a1(v); }},
      {"div", 2, [safe](B& b, A v) { return a0(v) / safe(b, a1(v)); }},
      {"rem", 2, [safe](B& b, A v) { return a0(v) % safe(b, a1(v)); }},
      {"ceildivsi", 2, [safe](B& b, A v) { return b.ceildivsi(a0(v), safe(b, a1(v))); }},
      {"floordivsi", 2, [safe](B& b, A v) { return b.floordivsi(a0(v), safe(b, a1(v))); }},
      {"ceildivui", 2, [safe](B& b, A v) { return b.ceildivui(a0(v), safe(b, a1(v))); }},
      {"mulhi", 2, [](B& b, A v) { return b.mulhi(a0(v), a1(v)); }},
      {"and", 2, [](B&, A v) { return a0(v) & a1(v); }},
      {"or", 2, [](B&, A v) { return a0(v) | a1(v); }},
      {"xor", 2, [](B&, A v) { return a0(v) ^ a1(v); }},
      {"not", 1, [](B&, A v) { return ~a0(v); }},
      {"shl", 2, [](B&, A v) { return a0(v) << a1(v); }},
      {"shr", 2, [](B&, A v) { return a0(v) >> a1(v); }},
      {"shrsi", 2, [](B& b, A v) { return b.shrsi(a0(v), a1(v)); }},
      {"shrui", 2, [](B& b, A v) { return b.shrui(a0(v), a1(v)); }},
      {"rotl", 2, [](B& b, A v) { return b.rotl(a0(v), a1(v)); }},
      {"ctpop", 1, [](B& b, A v) { return b.ctpop(a0(v)); }},
      {"ctlz", 1, [](B& b, A v) { return b.ctlz(a0(v)); }},
      {"cttz", 1, [](B& b, A v) { return b.cttz(a0(v)); }},
      {"min", 2, [](B& b, A v) { return b.min(a0(v), a1(v)); }},
      {"max", 2, [](B& b, A v) { return b.max(a0(v), a1(v)); }},
      {"abs", 1, [](B& b, A v) { return b.abs(a0(v)); }},
      {"neg", 1, [](B&, A v) { return -a0(v); }},
      {"select", 3, [](B& b, A v) { return b.select(a0(v) < a1(v), a1(v), a2(v)); }},
      {"lt", 2, compare(CmpPredicate::Lt), false},
      {"le", 2, compare(CmpPredicate::Le), false},
      {"gt", 2, compare(CmpPredicate::Gt), false},
      {"ne", 2, compare(CmpPredicate::Ne), false},
      {"to_f32_and_back", 1,
       [t](B& b, A v) { return b.cast(b.cast(b.cast(a0(v), ElementType::F32), ElementType::I64), t); }},
      {"to_bf16_and_back", 1,
       [t](B& b, A v) {
         Value x = b.cast(a0(v), ElementType::BF16);
         return b.cast(b.bitcast(x, ElementType::I16), t);
       }},
      {"widen_narrow", 1, [t](B& b, A v) { return b.cast(b.cast(a0(v), ElementType::I64) * 3, t); }},
  };
  return c;
}

TEST(VectorLifted, IntegerOpsMatchScalarLoopsI32) {
  runCases<std::int32_t>(ElementType::I32, intEdges<std::int32_t>(), integerCases<std::int32_t>(ElementType::I32));
}
TEST(VectorLifted, IntegerOpsMatchScalarLoopsSI8) {
  runCases<std::int8_t>(ElementType::SI8, intEdges<std::int8_t>(), integerCases<std::int8_t>(ElementType::SI8));
}
TEST(VectorLifted, IntegerOpsMatchScalarLoopsUI16) {
  runCases<std::uint16_t>(ElementType::UI16, intEdges<std::uint16_t>(), integerCases<std::uint16_t>(ElementType::UI16));
}
TEST(VectorLifted, IntegerOpsMatchScalarLoopsI64AndIndex) {
  runCases<std::int64_t>(ElementType::I64, intEdges<std::int64_t>(), integerCases<std::int64_t>(ElementType::I64));
  runCases<std::int64_t>(ElementType::Index, intEdges<std::int64_t>(), integerCases<std::int64_t>(ElementType::Index));
}

// --- reductions, lanes, shuffles ---

// (memref<?xT> in, memref<?xT> out) -> (): out[0] = reduce(kind, in[0:L]).
template <typename T>
void checkReductions(ElementType t, const std::vector<std::vector<T>>& rows) {
  using K = FunctionBuilder::VectorReduction;
  const std::uint32_t L = static_cast<std::uint32_t>(rows[0].size());
  std::vector<K> kinds{K::Add, K::Mul, K::Min, K::Max};
  if (isFloat(t))
    kinds.insert(kinds.end(), {K::Minimumf, K::Maximumf});
  else
    kinds.insert(kinds.end(), {K::And, K::Or, K::Xor});
  Module m("reduce");
  for (K k : kinds) {
    FunctionBuilder b(m, "r" + std::to_string(static_cast<int>(k)), FunctionType{{vec(t), vec(t)}, {}});
    b.store(b.reduce(k, b.vectorLoad(b.arg(0), {b.index(0)}, L)), b.arg(1), {b.index(0)});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Compiled c = compile(std::move(m));
  ASSERT_TRUE(c.mod);
  for (auto row : rows)
    for (K k : kinds) {
      // The scalar fold, lane 0 first (float add and mul are ordered).
      T want = row[0];
      for (std::uint32_t i = 1; i < L; ++i) {
        const T x = row[i];
        switch (k) {
          // Integers wrap, as the reduction does: folded in 64-bit unsigned
          // arithmetic and truncated, so the reference has no overflow of its own.
          case K::Add:
            if constexpr (std::is_integral_v<T>)
              want = static_cast<T>(static_cast<std::uint64_t>(want) + static_cast<std::uint64_t>(x));
            else
              want = static_cast<T>(want + x);
            break;
          case K::Mul:
            if constexpr (std::is_integral_v<T>)
              want = static_cast<T>(static_cast<std::uint64_t>(want) * static_cast<std::uint64_t>(x));
            else
              want = static_cast<T>(want * x);
            break;
          case K::Min: want = std::isnan(static_cast<double>(want)) ? x : std::isnan(static_cast<double>(x)) ? want : std::min(want, x); break;
          case K::Max: want = std::isnan(static_cast<double>(want)) ? x : std::isnan(static_cast<double>(x)) ? want : std::max(want, x); break;
          case K::Minimumf:
            want = std::isnan(static_cast<double>(want)) || std::isnan(static_cast<double>(x)) ? std::numeric_limits<T>::quiet_NaN()
                   : (want == x ? (std::signbit(static_cast<double>(want)) ? want : x) : std::min(want, x));
            break;
          case K::Maximumf:
            want = std::isnan(static_cast<double>(want)) || std::isnan(static_cast<double>(x)) ? std::numeric_limits<T>::quiet_NaN()
                   : (want == x ? (std::signbit(static_cast<double>(want)) ? x : want) : std::max(want, x));
            break;
          default:
            if constexpr (std::is_integral_v<T>) {
              if (k == K::And) want &= x;
              if (k == K::Or) want |= x;
              if (k == K::Xor) want ^= x;
            }
        }
      }
      std::vector<T> out(1);
      auto vi = view(row), vo = view(out);
      const test::JitFunction<void(V1<T>*, V1<T>*)> f(c.get("r" + std::to_string(static_cast<int>(k))));
      ASSERT_TRUE(f);
      f(&vi, &vo);
      if constexpr (std::is_floating_point_v<T>)
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(out[0])) << "kind " << static_cast<int>(k);
          continue;
        }
      EXPECT_EQ(out[0], want) << "kind " << static_cast<int>(k) << " on " << toString(t);
      if constexpr (std::is_floating_point_v<T>) {
        EXPECT_EQ(std::signbit(out[0]), std::signbit(want)) << "kind " << static_cast<int>(k);
      }
    }
}

TEST(VectorReduce, FloatsInLaneOrderWithNaNAndSignedZeros) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  checkReductions<float>(ElementType::F32, {{1e8f, 1, -1e8f, 1, 0.5f, 3, -2, 7},
                                             {-0.0f, 0.0f, -0.0f, 0.0f, 1, 2, 3, 4},
                                             {nan, 1, 2, 3, -4, 5, 6, 7},
                                             {1, 2, 3, 4, 5, 6, 7, nan}});
}
TEST(VectorReduce, IntegersSignedAndUnsigned) {
  checkReductions<std::int32_t>(ElementType::I32, {{INT32_MIN, -1, 7, 3, INT32_MAX, 0, 5, -9}});
  checkReductions<std::uint32_t>(ElementType::UI32, {{0xFFFFFFFFu, 1, 7, 3, 0x80000000u, 0, 5, 9}});
}

// (memref<?xi32> in, memref<?xi32> out) -> (): out = f(in[0:8], in[8:16]).
std::vector<std::int32_t> run16(const std::function<Value(FunctionBuilder&, Value, Value, Value)>& f,
                                std::size_t outSize, std::int64_t position = 3) {
  Module m("lanes");
  FunctionBuilder b(m, "f", FunctionType{{vec(ElementType::I32), vec(ElementType::I32), ElementType::Index}, {}});
  Value x = b.vectorLoad(b.arg(0), {b.index(0)}, 8), y = b.vectorLoad(b.arg(0), {b.index(8)}, 8);
  Value r = f(b, x, y, b.arg(2));
  b.vectorStore(r, b.arg(1), {b.index(0)});
  EXPECT_FALSE(b.finish()) << b.error().str();
  Compiled c = compile(std::move(m));
  std::vector<std::int32_t> in(16), out(outSize, -1);
  for (int i = 0; i < 16; ++i) in[static_cast<std::size_t>(i)] = 100 + i;
  auto vi = view(in), vo = view(out);
  const test::JitFunction<void(V1<std::int32_t>*, V1<std::int32_t>*, std::int64_t)> fn(c.get("f"));
  if (fn) fn(&vi, &vo, position);
  return out;
}

TEST(VectorLanes, ShuffleInterleaveDeinterleave) {
  using Out = std::vector<std::int32_t>;
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value y, Value) { return b.shuffle(x, y, {15, 0, 8, 7, 7, 3}); }, 6),
            (Out{115, 100, 108, 107, 107, 103}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value y, Value) { return b.interleave(x, y); }, 16),
            (Out{100, 108, 101, 109, 102, 110, 103, 111, 104, 112, 105, 113, 106, 114, 107, 115}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value, Value) { return b.deinterleave(x).first; }, 4),
            (Out{100, 102, 104, 106}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value, Value) { return b.deinterleave(x).second; }, 4),
            (Out{101, 103, 105, 107}));
}

TEST(VectorLanes, ExtractInsertFromElementsStepSplat) {
  using Out = std::vector<std::int32_t>;
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value y, Value at) {
              Value v = b.insert(x, b.extract(y, 7), 0u);  // static lanes
              return b.insert(v, b.extract(y, at), at);      // dynamic lanes
            }, 8),
            (Out{115, 101, 102, 111, 104, 105, 106, 107}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value, Value at) {
              return b.fromElements({b.extract(x, 2), b.i32(-5), b.cast(at, ElementType::I32)});
            }, 3),
            (Out{102, -5, 3}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value, Value, Value) { return b.constantVector<int>(ElementType::I32, {4, -3}); }, 2),
            (Out{4, -3}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value x, Value, Value) {
              return b.cast(b.laneIndices(ElementType::Index, 8), ElementType::I32) + x;
            }, 8),
            (Out{100, 102, 104, 106, 108, 110, 112, 114}));
  EXPECT_EQ(run16([](FunctionBuilder& b, Value, Value, Value at) { return b.splat(b.cast(at, ElementType::I32), 5); }, 5),
            (Out{3, 3, 3, 3, 3}));
}

TEST(VectorLanes, CreateMaskForEveryBound) {
  for (std::int64_t n : {-3, 0, 1, 5, 8, 9, 1000}) {
    auto out = run16([](FunctionBuilder& b, Value, Value, Value at) {
                       Value mask = b.createMask(8, at);
                       return b.select(mask, b.splat(b.i32(1), 8), b.splat(b.i32(0), 8));
                     }, 8, n);
    for (std::int64_t k = 0; k < 8; ++k)
      EXPECT_EQ(out[static_cast<std::size_t>(k)], k < n ? 1 : 0) << "n " << n << " lane " << k;
  }
}

// --- memory ---

// Masked loads and stores with every mask of 8 lanes, at a tail: the
// kernel gets the mask as the bits of an i32 (lane k = bit k).
TEST(VectorMemory, MaskedLoadAndStoreEveryLanePattern) {
  Module m("masked");
  {
    FunctionBuilder b(m, "load", FunctionType{{vec(ElementType::F32), vec(ElementType::F32), ElementType::I32, ElementType::Index}, {}});
    Value bits = b.splat(b.arg(2), 8);
    Value mask = (bits >> b.cast(b.laneIndices(ElementType::I32, 8), ElementType::I32) & 1) == 1;
    Value pass = b.constantVector<float>(ElementType::F32, {-1, -2, -3, -4, -5, -6, -7, -8});
    b.vectorStore(b.maskedLoad(b.arg(0), {b.arg(3)}, mask, pass), b.arg(1), {b.index(0)});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    FunctionBuilder b(m, "store", FunctionType{{vec(ElementType::F32), vec(ElementType::F32), ElementType::I32, ElementType::Index}, {}});
    Value bits = b.splat(b.arg(2), 8);
    Value mask = (bits >> b.laneIndices(ElementType::I32, 8) & 1) == 1;
    b.maskedStore(b.vectorLoad(b.arg(0), {b.index(0)}, 8), b.arg(1), {b.arg(3)}, mask);
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Compiled c = compile(std::move(m));
  const test::JitFunction<void(V1<float>*, V1<float>*, std::int32_t, std::int64_t)> load(c.get("load"));
  const test::JitFunction<void(V1<float>*, V1<float>*, std::int32_t, std::int64_t)> store(c.get("store"));
  ASSERT_TRUE(load && store);
  for (std::int32_t bits = 0; bits < 256; ++bits) {
    // The memref ends where the highest set lane does: a tail of that length.
    const std::int64_t start = 5, len = start + (bits ? 32 - std::countl_zero(static_cast<std::uint32_t>(bits)) : 0);
    std::vector<float> src(static_cast<std::size_t>(len)), out(8, 0);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i) + 0.5f;
    auto vs = view(src), vo = view(out);
    load(&vs, &vo, bits, start);
    for (int k = 0; k < 8; ++k)
      ASSERT_EQ(out[static_cast<std::size_t>(k)], (bits >> k) & 1 ? src[static_cast<std::size_t>(start + k)] : -1.0f - k)
          << "mask " << bits << " lane " << k;
    std::vector<float> values{10, 11, 12, 13, 14, 15, 16, 17}, dst(static_cast<std::size_t>(len), 0);
    auto vv = view(values), vd = view(dst);
    store(&vv, &vd, bits, start);
    for (std::int64_t i = 0; i < len; ++i) {
      const std::int64_t k = i - start;
      const bool written = k >= 0 && ((bits >> k) & 1);
      ASSERT_EQ(dst[static_cast<std::size_t>(i)], written ? 10.0f + static_cast<float>(k) : 0.0f)
          << "mask " << bits << " element " << i;
    }
  }
}

// transfer_read/write: every start position of a row, unit and non-unit
// stride (a column of a 2-D view), lanes past the end padded / not written.
TEST(VectorMemory, TransferReadWriteTailsAtAnyStride) {
  Module m("transfer");
  const MemRefType strided(ElementType::F64, {kDynamic, kDynamic}, StridedLayout{0, {kDynamic, kDynamic}});
  for (bool column : {false, true}) {
    FunctionBuilder b(m, column ? "col" : "row", FunctionType{{strided, strided, ElementType::Index}, {}});
    Value v = b.transferRead(b.arg(0), {b.index(0), b.arg(2)}, 8, b.f64(-1));
    b.transferWrite(v * 2.0, b.arg(1), {b.index(0), b.arg(2)});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Compiled c = compile(std::move(m));
  using V2 = runtime::StridedMemRef<double, 2>;
  for (bool column : {false, true}) {
    const test::JitFunction<void(V2*, V2*, std::int64_t)> f(c.get(column ? "col" : "row"));
    ASSERT_TRUE(f);
    for (std::int64_t n : {0, 1, 7, 8, 13}) {
      for (std::int64_t start = 0; start <= n + 1; ++start) {
        std::vector<double> in(static_cast<std::size_t>(3 * n + 3)), out(in.size(), 0);
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<double>(i);
        // A row of n elements, or a column of n elements with stride 3.
        V2 vi{in.data(), in.data(), 0, {1, n}, {0, column ? 3 : 1}};
        V2 vo{out.data(), out.data(), 0, {1, n}, {0, column ? 3 : 1}};
        f(&vi, &vo, start);
        for (std::size_t i = 0; i < out.size(); ++i) {
          const auto e = static_cast<std::int64_t>(i);
          const std::int64_t step = column ? 3 : 1;
          const bool lane = e % step == 0 && e / step >= start && e / step < std::min(n, start + 8);
          ASSERT_EQ(out[i], lane ? 2 * in[i] : 0.0) << (column ? "column" : "row") << " n " << n << " start " << start
                                                    << " element " << i;
        }
      }
    }
  }
}

TEST(VectorMemory, GatherScatterRepeatedAndOutOfOrderOffsets) {
  Module m("gather");
  const MemRefType mat(ElementType::I32, {kDynamic, kDynamic});
  {
    FunctionBuilder b(m, "gather", FunctionType{{mat, vec(ElementType::I64), vec(ElementType::I32)}, {}});
    Value offsets = b.vectorLoad(b.arg(1), {b.index(0)}, 8);
    Value mask = b.createMask(8, b.index(7));  // lane 7 reads nothing
    Value v = b.gather(b.arg(0), {b.index(1), b.index(2)}, offsets, mask, b.splat(b.i32(-1), 8));
    b.vectorStore(v, b.arg(2), {b.index(0)});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    FunctionBuilder b(m, "scatter", FunctionType{{mat, vec(ElementType::I64), vec(ElementType::I32)}, {}});
    Value offsets = b.vectorLoad(b.arg(1), {b.index(0)}, 8);
    Value mask = b.createMask(8, b.index(7));
    b.scatter(b.vectorLoad(b.arg(2), {b.index(0)}, 8), b.arg(0), {b.index(1), b.index(2)}, offsets, mask);
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Compiled c = compile(std::move(m));
  using V2 = runtime::StridedMemRef<std::int32_t, 2>;
  const test::JitFunction<void(V2*, V1<std::int64_t>*, V1<std::int32_t>*)> gather(c.get("gather"));
  const test::JitFunction<void(V2*, V1<std::int64_t>*, V1<std::int32_t>*)> scatter(c.get("scatter"));
  ASSERT_TRUE(gather && scatter);
  std::vector<std::int32_t> matrix(3 * 10);
  for (std::size_t i = 0; i < matrix.size(); ++i) matrix[i] = static_cast<std::int32_t>(i);
  V2 vm{matrix.data(), matrix.data(), 0, {3, 10}, {10, 1}};
  // Out of order, repeated, negative (left of the base), and a wild offset
  // in the masked-off lane that must not be read.
  std::vector<std::int64_t> offsets{5, -2, 0, 5, 7, 1, -1, 1 << 30};
  std::vector<std::int32_t> out(8);
  auto vo = view(offsets);
  auto vr = view(out);
  gather(&vm, &vo, &vr);
  EXPECT_EQ(out, (std::vector<std::int32_t>{17, 10, 12, 17, 19, 13, 11, -1}));
  // Scatter: with repeated offsets the highest lane wins (lane 3 over lane 0).
  std::vector<std::int32_t> values{100, 101, 102, 103, 104, 105, 106, 107};
  auto vv = view(values);
  scatter(&vm, &vo, &vv);
  // Base m[1][2] is element 12; lanes 0 and 3 both write element 17.
  EXPECT_EQ(matrix[17], 103);
  EXPECT_EQ(matrix[10], 101);
  EXPECT_EQ(matrix[12], 102);
  EXPECT_EQ(matrix[19], 104);
  EXPECT_EQ(matrix[13], 105);
  EXPECT_EQ(matrix[11], 106);
  for (std::size_t i : {14u, 15u, 16u, 18u, 20u}) EXPECT_EQ(matrix[i], static_cast<std::int32_t>(i)) << i;
}

// --- checked mode ---

TEST(VectorChecked, EveryAccessedLaneIsCheckedAndNamed) {
  Module m("checked");
  FunctionOptions o;
  o.checked = true;
  {
    FunctionBuilder b(m, "load", FunctionType{{vec(ElementType::F32), ElementType::Index}, {ElementType::F32}}, o);
    b.ret({b.reduce(FunctionBuilder::VectorReduction::Add, b.vectorLoad(b.arg(0), {b.arg(1)}, 8))});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  {
    FunctionBuilder b(m, "gather", FunctionType{{vec(ElementType::F32), ElementType::Index}, {ElementType::F32}}, o);
    Value offsets = b.constantVector<int>(ElementType::I32, {0, 3, 1, 9});
    Value mask = b.createMask(4, b.arg(1));
    Value v = b.gather(b.arg(0), {b.index(0)}, offsets, mask, b.splat(b.f32(0), 4));
    b.ret({b.reduce(FunctionBuilder::VectorReduction::Add, v)});
    ASSERT_FALSE(b.finish()) << b.error().str();
  }
  Compiled c = compile(std::move(m));
  const test::JitFunction<float(V1<float>*, std::int64_t)> load(c.get("load"));
  const test::JitFunction<float(V1<float>*, std::int64_t)> gather(c.get("gather"));
  ASSERT_TRUE(load && gather);
  std::vector<float> data(10, 1.0f);
  auto v = view(data);
  EXPECT_EQ(load(&v, 2), 8.0f);
  EXPECT_FALSE(runtime::takeCheckFailure());
  load(&v, 3);  // lane 7 at 10
  Error e = runtime::takeCheckFailure();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.code(), ErrorCode::RuntimeCheckFailed);
  EXPECT_EQ(e.message(), "kernel 'load': vector.load of argument #0 (memref<?xf32>) at [10] is out of bounds [10]");
  load(&v, -1);  // lane 0 at -1
  e = runtime::takeCheckFailure();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "kernel 'load': vector.load of argument #0 (memref<?xf32>) at [-1] is out of bounds [10]");
  // The lane at 9 is out of bounds only when the mask lets it through.
  std::vector<float> small(9, 1.0f);
  auto vs = view(small);
  EXPECT_EQ(gather(&vs, 3), 3.0f);
  EXPECT_FALSE(runtime::takeCheckFailure());
  gather(&vs, 4);
  e = runtime::takeCheckFailure();
  ASSERT_TRUE(e);
  EXPECT_EQ(e.message(), "kernel 'gather': vector.gather of argument #0 (memref<?xf32>) at [9] is out of bounds [9]");
}

// --- types (diagnostics: tests/error/vector_errors_test.cpp) ---

TEST(VectorType, ParseAndPrint) {
  auto t = parseVectorType("vector<16xf32>");
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_EQ(*t, (VectorType{ElementType::F32, 16}));
  EXPECT_EQ(toString(*t), "vector<16xf32>");
  EXPECT_EQ(toString(VectorType{ElementType::Index, 4}), "vector<4xindex>");
  auto multi = parseVectorType("vector<4x16xf32>");
  ASSERT_FALSE(multi);
  EXPECT_EQ(multi.error().code(), ErrorCode::ParseError);
  EXPECT_NE(multi.error().message().find("multi-dimensional vectors are not supported"), std::string::npos);
  auto scalable = parseVectorType("vector<[4]xf32>");
  ASSERT_FALSE(scalable);
  EXPECT_NE(scalable.error().message().find("scalable vectors are not supported"), std::string::npos);
  auto zero = parseVectorType("vector<0xf32>");
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message().find("vector of 0 lanes"), std::string::npos);
  auto ptr = parseVectorType("vector<4x!llvm.ptr>");
  ASSERT_FALSE(ptr);
  EXPECT_NE(ptr.error().message().find("not an integer, index or float type"), std::string::npos);
}

TEST(VectorTarget, LanesFromFeatures) {
  auto avx512 = VectorTarget::fromFeatures("x86_64-pc-linux-gnu", "+avx2,+fma,+avx512f");
  EXPECT_EQ(avx512.lanes(ElementType::F32), 16u);
  EXPECT_EQ(avx512.lanes(ElementType::F64), 8u);
  EXPECT_EQ(avx512.lanes(ElementType::I8), 64u);
  EXPECT_EQ(avx512.registers, 32u);
  auto avx2 = VectorTarget::fromFeatures("x86_64-pc-linux-gnu", "+avx,+avx2,+fma,-avx512f");
  EXPECT_EQ(avx2.lanes(ElementType::F32), 8u);
  EXPECT_EQ(avx2.registers, 16u);
  auto sse = VectorTarget::fromFeatures("x86_64-pc-linux-gnu", "+sse2");
  EXPECT_EQ(sse.lanes(ElementType::F32), 4u);
  EXPECT_EQ(VectorTarget::fromFeatures("aarch64-linux-gnu", "+neon").lanes(ElementType::F32), 4u);
  EXPECT_GE(VectorTarget::host().lanes(ElementType::F32), 4u);
}

}  // namespace
}  // namespace memjit::codegen
