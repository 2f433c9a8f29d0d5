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

#include "support/expect_error.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/vector_target.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/checks.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

namespace memjit::codegen {
namespace {

template <typename T>
using V1 = runtime::StridedMemRef<T, 1>;

template <typename T>
V1<T> view(std::vector<T>& v) {
  return {v.data(), v.data(), 0, {static_cast<std::int64_t>(v.size())}, {1}};
}

struct Compiled {
  std::unique_ptr<jit::Jit> jit;
  std::optional<jit::LoadedModule> mod;
  void* get(const std::string& name) {
    auto p = mod->symbol("_mlir_ciface_" + name);
    EXPECT_TRUE(p) << p.error().str();
    return p ? *p : nullptr;
  }
};

Compiled compile(Module m) {
  Compiled c;
  auto j = jit::Jit::create();
  EXPECT_TRUE(j) << j.error().str();
  c.jit = std::make_unique<jit::Jit>(std::move(*j));
  auto mod = c.jit->add(std::move(m));
  EXPECT_TRUE(mod) << mod.error().str();
  if (mod) c.mod.emplace(std::move(*mod));
  return c;
}

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
        case 1: reinterpret_cast<void (*)(V1<T>*, V1<Out>*)>(f)(&views[0], &o); break;
        case 2: reinterpret_cast<void (*)(V1<T>*, V1<T>*, V1<Out>*)>(f)(&views[0], &views[1], &o); break;
        default: reinterpret_cast<void (*)(V1<T>*, V1<T>*, V1<T>*, V1<Out>*)>(f)(&views[0], &views[1], &views[2], &o);
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
      {"tanh", 1, [](B& b, A v) { return b.tanh(a0(v)); }},
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

}  // namespace
}  // namespace memjit::codegen
