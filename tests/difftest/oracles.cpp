#include "oracles.h"

#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "float_formats.h"
#include "lowering.h"
#include "regression.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/loaded_module.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/half.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/parallel.h"
#include "memjit/runtime/variant.h"
#include "memjit/type_syntax.h"
#include "memjit/types.h"

namespace memjit::difftest {
namespace {

using runtime::StridedMemRef;
using TypedFn = std::int64_t(StridedMemRef<std::int64_t, 1>, StridedMemRef<float, 2>, StridedMemRef<std::int32_t, 2>,
                             f16, bf16, std::int8_t, double);
using RawFn = std::int64_t(StridedMemRef<std::int64_t, 1>*, StridedMemRef<float, 2>*, StridedMemRef<std::int32_t, 2>*,
                           f16::abi_type, bf16::abi_type, std::int8_t, double);

/// The buffers and descriptors of one call, filled from the program's initial state.
struct Harness {
  std::vector<std::int64_t> io;
  std::vector<float> fm;
  std::vector<std::int32_t> im;
  StridedMemRef<std::int64_t, 1> ioD{};
  StridedMemRef<float, 2> fmD{};
  StridedMemRef<std::int32_t, 2> imD{};

  explicit Harness(const Program& p) {
    for (auto v : p.io) io.push_back(static_cast<std::int64_t>(v));
    for (auto v : p.fm.data) fm.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(v)));
    for (auto v : p.im.data) im.push_back(static_cast<std::int32_t>(static_cast<std::uint32_t>(v)));
    ioD = {io.data(), io.data(), 0, {static_cast<std::int64_t>(io.size())}, {1}};
    fmD = {fm.data(), fm.data(), p.fm.offset, {p.fm.sizes[0], p.fm.sizes[1]}, {p.fm.strides[0], p.fm.strides[1]}};
    imD = {im.data(), im.data(), p.im.offset, {p.im.sizes[0], p.im.sizes[1]}, {p.im.strides[0], p.im.strides[1]}};
  }
  Observed observe(std::int64_t ret) const {
    Observed o;
    for (auto v : io) o.io.push_back(static_cast<std::uint64_t>(v));
    for (auto v : fm) o.fm.push_back(std::bit_cast<std::uint32_t>(v));
    for (auto v : im) o.im.push_back(static_cast<std::uint32_t>(v));
    o.ret = static_cast<std::uint64_t>(ret);
    return o;
  }
};

Observed call(const jit::Function& fn, const Program& p, Invoker invoker) {
  Harness h(p);
  const f16 hv = f16::fromBits(static_cast<std::uint16_t>(p.h));
  const bf16 gv = bf16::fromBits(static_cast<std::uint16_t>(p.g));
  const auto c = static_cast<std::int8_t>(p.c);
  const double d = std::bit_cast<double>(p.d);
  switch (invoker) {
    case Invoker::Typed: {
      auto typed = fn.as<TypedFn>();
      if (!typed) return Observed{{}, {}, {}, 0, "typed invoker: " + typed.error().message()};
      auto r = typed->call(h.ioD, h.fmD, h.imD, hv, gv, c, d);
      if (!r) return Observed{{}, {}, {}, 0, r.error().message()};
      return h.observe(*r);
    }
    case Invoker::Raw: {
      auto* raw = fn.cInterfaceAs<RawFn>();
      return h.observe(raw(&h.ioD, &h.fmD, &h.imD, hv.toAbi(), gv.toAbi(), c, d));
    }
    case Invoker::Dynamic: {
      std::vector<runtime::Variant> args{runtime::Variant(h.ioD), runtime::Variant(h.fmD), runtime::Variant(h.imD),
                                         runtime::Variant(hv), runtime::Variant(gv), runtime::Variant(static_cast<int>(c)),
                                         runtime::Variant(d)};
      auto r = fn.invoke(args);
      if (!r) return Observed{{}, {}, {}, 0, r.error().message()};
      return h.observe(r->toInt());
    }
  }
  return {};
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}


bool matches(ElementType t, const Val& e, std::uint64_t got, BatchStats& stats) {
  const unsigned w = widthOf(t);
  const std::uint64_t m = w >= 64 ? ~0ULL : (1ULL << w) - 1;
  got &= m;
  switch (e.flags) {
    case kExact: ++stats.compared; return (e.bits & m) == got;
    case kAlt: ++stats.compared; return (e.bits & m) == got || (e.alt & m) == got;
    case kAnyNaN: ++stats.compared; return isFloat(t) ? isNaNBits(t, got) : true;
    case kUlp:
      ++stats.compared;
      if (!isFloat(t)) return true;
      if (isNaNBits(t, e.bits) || isNaNBits(t, got)) return isNaNBits(t, e.bits) == isNaNBits(t, got);
      // A bf16 math result within the bound of a denormal may be flushed to zero (vcvtneps2bf16, documented).
      if (t == ElementType::BF16 && (e.bits & 0x7fff) < 0x0080 + e.alt && got == (e.bits & 0x8000)) return true;
      return ulpDistance(t, e.bits, got) <= e.alt;  // the interpreter's bound for the op
    default: ++stats.unchecked; return true;
  }
}

std::string describe(ElementType t, const Val& e) {
  std::string s = hex(e.bits) + " (" + toString(t);
  if (e.flags == kAlt) s += " or " + hex(e.alt);
  if (e.flags == kAnyNaN) s += ", any NaN";
  if (e.flags == kUlp) s += ", within " + std::to_string(e.alt) + " ulp";
  return s + ")";
}

}  // namespace

std::vector<Oracle> standardOracles() {
  using jit::OptLevel;
  const std::vector<Invoker> typed{Invoker::Typed};
  return {
      {"O0", OptLevel::O0, typed, false, false, false},
      {"O3", OptLevel::O3, {Invoker::Typed, Invoker::Raw}, false, false, false},
      {"O1", OptLevel::O1, {Invoker::Typed, Invoker::Dynamic}, false, false, false},
      {"O2", OptLevel::O2, typed, false, false, false},
      {"O2-checked", OptLevel::O2, typed, true, false, false},
      {"O0-checked-debuginfo", OptLevel::O0, typed, true, true, false},
      {"O3-debuginfo", OptLevel::O3, typed, false, true, false},
      {"aot-O2", OptLevel::O2, typed, false, false, true},
      {"O2-1-thread", OptLevel::O2, typed, false, false, false, 1},
      {"O3-dynamic-invoker", OptLevel::O3, {Invoker::Dynamic}, false, false, false},
      {"tiered-first-O2", OptLevel::O2, {Invoker::Typed, Invoker::Raw}, false, false, false, 4, true},
      {"O2-outlined-in-parts", OptLevel::O2, typed, false, false, false, 4, false, true},
      {"O3-outlined-in-parts-debuginfo", OptLevel::O3, typed, false, true, false, 4, false, true},
  };
}

std::vector<Oracle> oraclesForBatch(std::uint64_t k) {
  const auto all = standardOracles();
  // Two of the others per batch, in turn; with an odd count the last turn wraps to the first.
  const std::size_t others = all.size() - 2, turns = (others + 1) / 2, turn = static_cast<std::size_t>(k % turns);
  return {all[0], all[1], all[2 + (2 * turn) % others], all[2 + (2 * turn + 1) % others]};
}

void compare(const Program& p, const Outcome& expected, const Observed& got, std::vector<std::string>& out,
             BatchStats& stats) {
  auto report = [&](std::string what) {
    if (out.size() < 4) out.push_back(std::move(what));
  };
  if (!got.error.empty()) {
    report("call failed: " + got.error);
    return;
  }
  for (int k = 0; k < p.outputs; ++k) {
    const ElementType t = expected.outputTypes[static_cast<std::size_t>(k)];
    const Val& e = expected.outputs[static_cast<std::size_t>(k)];
    const std::uint64_t g = got.io[static_cast<std::size_t>(p.inputs + k)];
    if (!matches(t, e, g, stats))
      report("output " + std::to_string(k) + ": expected " + describe(t, e) + ", got " + hex(g & (widthOf(t) >= 64 ? ~0ULL : (1ULL << widthOf(t)) - 1)));
  }
  for (int k = 0; k < p.inputs; ++k)
    if (got.io[static_cast<std::size_t>(k)] != p.io[static_cast<std::size_t>(k)]) report("input slot " + std::to_string(k) + " changed");
  if (!matches(ElementType::I64, expected.ret, got.ret, stats))
    report("return: expected " + describe(ElementType::I64, expected.ret) + ", got " + hex(got.ret));
  for (std::size_t i = 0; i < expected.fm.size(); ++i)
    if (!matches(ElementType::F32, expected.fm[i], got.fm[i], stats))
      report("f32 buffer element " + std::to_string(i) + ": expected " + describe(ElementType::F32, expected.fm[i]) +
             ", got " + hex(got.fm[i]));
  for (std::size_t i = 0; i < expected.im.size(); ++i)
    if (!matches(ElementType::I32, expected.im[i], got.im[i], stats))
      report("i32 buffer element " + std::to_string(i) + ": expected " + describe(ElementType::I32, expected.im[i]) +
             ", got " + hex(got.im[i]));
}

namespace {

// A Jit with `options`; with MEMJIT_DIFFTEST_DUMP set, as checkRegression
// does: each oracle's IR before and after the passes, and its object (the
// module is named after the oracle).
Expected<std::unique_ptr<jit::Jit>> makeJit(jit::JitOptions options) {
  if (const char* dump = std::getenv("MEMJIT_DIFFTEST_DUMP")) options.dumpDirectory = dump;
  auto j = jit::Jit::create(options);
  if (!j) return j.error();
  return std::make_unique<jit::Jit>(std::move(*j));
}

}  // namespace

Expected<jit::Jit*> Runner::jitFor(const Oracle& o) {
  if (!o.firstTier && !o.inParts) return jit_.get();
  std::unique_ptr<jit::Jit>& made = o.firstTier ? firstTierJit_ : partsJit_;
  if (!made) {
    jit::JitOptions options;
    if (o.firstTier) {
      options.tiering.enabled = true;
      options.tiering.callThreshold = std::numeric_limits<std::uint32_t>::max();
    } else {
      options.compileThreads = 2;
      options.largeFunctions = {.outlineLoopsAbove = 0, .compileInPartsAbove = 0, .instructionsPerPart = 300};
    }
    MEMJIT_ASSIGN_OR_RETURN(made, makeJit(options));
  }
  return made.get();
}

Expected<Runner> Runner::create() {
  MEMJIT_ASSIGN_OR_RETURN(auto made, makeJit({}));
  return Runner(std::move(made));
}

namespace {
std::string functionName(std::size_t i) { return "p" + std::to_string(i); }

Expected<jit::LoadedModule> compile(jit::Jit& jit, codegen::Module module, const Oracle& o) {
  if (!o.aot) {
    jit::AddOptions add;
    add.optLevel = o.level;
    return jit.add(std::move(module), add);
  }
  const std::string path = "/tmp/memjit-difftest-" + std::to_string(::getpid()) + ".o";
  jit::AotOptions aot;
  aot.optLevel = o.level;
  jit::AotOutputs outputs{.object = path};
  // As the JIT's dumpDirectory (checkRegression): the optimised IR and the assembly.
  if (const char* dump = std::getenv("MEMJIT_DIFFTEST_DUMP")) {
    const std::string stem = std::string(dump) + "/aot-" + std::string(jit::optLevelName(o.level));
    outputs.ir = stem + ".ll";
    outputs.assembly = stem + ".s";
  }
  if (Error e = jit::compileAhead(module, outputs, aot)) return e;
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::remove(path.c_str());
  return jit.addObject(bytes.str(), "difftest_aot");
}
}  // namespace

void Runner::run(const std::vector<Program>& programs, const std::vector<Oracle>& oracles,
                 std::vector<Mismatch>& mismatches, BatchStats& stats) {
  std::vector<Outcome> expected;
  std::vector<bool> usable(programs.size(), true);
  for (const Program& p : programs) expected.push_back(interpret(p));
  stats.programs += programs.size();
  for (const Oracle& o : oracles) {
    const auto started = std::chrono::steady_clock::now();
    struct Timer {
      BatchStats& stats;
      const std::string& name;
      std::chrono::steady_clock::time_point start;
      ~Timer() {
        const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        for (auto& [n, s] : stats.seconds)
          if (n == name) {
            s += t;
            return;
          }
        stats.seconds.emplace_back(name, t);
      }
    } timer{stats, o.name, started};
    runtime::setNumThreads(o.threads);
    codegen::Module module("difftest_" + o.name);
    codegen::FunctionOptions fo;
    fo.checked = o.checked;
    fo.debugInfo = o.debugInfo;
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < programs.size(); ++i) {
      if (!usable[i] || (!programs[i].trap.empty() && !o.checked)) continue;
      if (Error e = lowerProgram(module, functionName(i), programs[i], fo)) {
        mismatches.push_back({i, o.name, "the builder rejected the program: " + e.message()});
        ++stats.builderRejected;
        usable[i] = false;
        continue;
      }
      members.push_back(i);
    }
    if (members.empty()) continue;
    auto made = jitFor(o);
    if (!made) {
      mismatches.push_back({members.front(), o.name, "no Jit for the oracle: " + made.error().message()});
      continue;
    }
    jit::Jit* compiler = *made;
    auto loaded = compile(*compiler, std::move(module), o);
    if (!loaded) {
      mismatches.push_back({members.front(), o.name, "the module did not compile: " + loaded.error().message()});
      continue;
    }
    if (o.firstTier && jit::currentTier(*loaded) != jit::Tier::First) {
      mismatches.push_back({members.front(), o.name,
                            std::string("the module runs no first tier: ") + jit::tierName(jit::currentTier(*loaded))});
      (void)compiler->remove(*loaded);
      continue;
    }
    for (std::size_t i : members) {
      auto fn = loaded->function(functionName(i));
      if (!fn) {
        mismatches.push_back({i, o.name, "lookup failed: " + fn.error().message()});
        continue;
      }
      const Program& p = programs[i];
      for (Invoker invoker : o.invokers) {
        // Only the invokers report failed checks.
        if (o.checked && invoker == Invoker::Raw) continue;
        const Observed got = call(*fn, p, invoker);
        std::vector<std::string> diffs;
        if (!p.trap.empty()) {
          if (expected[i].trap != p.trap)
            diffs.push_back("the interpreter did not stop at the program's trap (" + p.trap + "): " +
                            (expected[i].trap.empty() ? std::string("it ran to the end")
                                                      : "it stopped at '" + expected[i].trap + "'"));
          else if (got.error.find(p.trap) == std::string::npos)
            diffs.push_back("expected a checked-mode failure '... " + p.trap + "', got " +
                            (got.error.empty() ? std::string("success") : "'" + got.error + "'"));
        } else {
          compare(p, expected[i], got, diffs, stats);
        }
        const char* via = invoker == Invoker::Raw ? " raw-c-interface" : invoker == Invoker::Dynamic ? " dynamic-invoker" : "";
        for (auto& d : diffs) mismatches.push_back({i, o.name + via, std::move(d)});
      }
    }
    (void)compiler->remove(*loaded);
  }
}

}  // namespace memjit::difftest

namespace memjit::difftest {

std::string checkRegression(const Program& state, const std::function<void(codegen::FunctionBuilder&)>& build,
                            const Expectations& expected, const Helpers& helpers) {
  // MEMJIT_DIFFTEST_DUMP=dir leaves each level's IR before and after the passes, and its object, in dir.
  jit::JitOptions options;
  if (const char* dump = std::getenv("MEMJIT_DIFFTEST_DUMP")) options.dumpDirectory = dump;
  auto jit = jit::Jit::create(std::move(options));
  if (!jit) return jit.error().message();
  std::string report;
  // Each level, and O2 checked and ahead of time (whose code differs enough to have exposed bugs of its own).
  std::vector<Oracle> runs;
  for (jit::OptLevel level : {jit::OptLevel::O0, jit::OptLevel::O1, jit::OptLevel::O2, jit::OptLevel::O3})
    runs.push_back({std::string(jit::optLevelName(level)), level});
  runs.push_back({"O2-checked", jit::OptLevel::O2, {Invoker::Typed}, true});
  runs.push_back({"aot-O2", jit::OptLevel::O2, {Invoker::Typed}, false, false, true});
  for (const Oracle& o : runs) {
    const std::string at = o.name + ": ";
    codegen::Module module("difftest_regression");
    // Helpers are built as the tool's oracle builds every function of the program: checked in O2-checked.
    codegen::FunctionOptions options;
    options.checked = o.checked;
    if (helpers) {
      if (Error e = helpers(module, options)) return at + e.message();
    }
    {
      codegen::FunctionBuilder b(module, "f", *parseFunctionType(kSignature), options);
      build(b);
      if (Error e = b.finish()) return at + e.message();
    }
    auto loaded = compile(*jit, std::move(module), o);
    if (!loaded) return at + loaded.error().message();
    auto fn = loaded->function("f");
    if (!fn) return at + fn.error().message();
    const Observed got = call(*fn, state, Invoker::Typed);
    if (!got.error.empty()) return at + got.error;
    for (const auto& [slot, bits] : expected.outputs)
      if (got.io[static_cast<std::size_t>(state.inputs + slot)] != bits)
        report += at + "output " + std::to_string(slot) + ": expected " + hex(bits) + ", got " +
                  hex(got.io[static_cast<std::size_t>(state.inputs + slot)]) + "\n";
    if (expected.hasRet && got.ret != expected.ret)
      report += at + "return: expected " + hex(expected.ret) + ", got " + hex(got.ret) + "\n";
    for (const auto& [i, bits] : expected.fm)
      if (got.fm[i] != bits) report += at + "f32 element " + std::to_string(i) + ": expected " + hex(bits) + ", got " + hex(got.fm[i]) + "\n";
    for (const auto& [i, bits] : expected.im)
      if (got.im[i] != bits) report += at + "i32 element " + std::to_string(i) + ": expected " + hex(bits) + ", got " + hex(got.im[i]) + "\n";
  }
  return report;
}

}  // namespace memjit::difftest
