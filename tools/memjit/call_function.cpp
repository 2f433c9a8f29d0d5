#include "call_function.h"

#include <charconv>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

#include "memjit/jit/jit.h"
#include "memjit/jit/program.h"
#include "memjit/metadata_symbols.h"
#include "memjit/runtime/npy.h"
#include "memjit/runtime/print.h"
#include "memjit/runtime/result_allocator.h"
#include "memjit/type_syntax.h"
#include "call_benchmark.h"
#include "call_labels.h"
#include "call_options.h"
#include "call_signature.h"
#include "call_values.h"

namespace memjit::cli {
namespace {

constexpr std::string_view kName = "call";

// The function to call: its signature, C interface and result allocator.
struct Callee {
  signature::FunctionSignature signature;
  FunctionType userType;  ///< inputs without result-allocator destinations
  void* cInterface = nullptr;
  void* resultAllocator = nullptr;
  jit::Function keepAlive;
};

Expected<std::string> chooseEntry(const CallOptions& o, const jit::LoadedModule& module) {
  if (o.entry) return *o.entry;
  if (o.signatures.size() == 1) return o.signatures[0].first;
  std::vector<std::string> names = module.functionNames();
  if (names.size() == 1) return names[0];
  if (names.empty())
    return Error(ErrorCode::InvalidArgument, "'" + o.file + "' carries no memjit signature metadata: give -e ENTRY "
                                             "and --signature ENTRY='<function type>'");
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return Error(ErrorCode::InvalidArgument, "'" + o.file + "' describes " + std::to_string(names.size()) +
                                               " functions (" + list + "): choose one with -e ENTRY");
}

Expected<Callee> resolveCallee(const CallOptions& o, jit::Jit& jit, const jit::Program& program,
                               const std::string& entry) {
  const jit::LoadedModule& module = program.module();
  Callee c;
  const std::string ciface = metadata::symbolName(metadata::kCInterfacePrefix, entry);
  std::optional<FunctionType> flagType;
  std::string flagText;
  for (const auto& [name, text] : o.signatures) {
    auto type = parseFunctionType(text);
    if (!type) return type.error().withContext("--signature " + name);
    if (name == entry) {
      flagType = std::move(*type);
      flagText = text;
    }
  }
  auto fn = module.function(entry);
  if (flagType && fn) MEMJIT_TRY(checkAgainstMetadata(o.file, entry, *flagType, flagText, fn->signature().type));
  if (flagType && !fn) {
    auto address = module.symbol(ciface);
    if (!address)
      return Error(ErrorCode::NotFound, "--signature " + entry + ": '" + o.file + "' defines no '" + ciface +
                                            "' (MLIR emits it for functions with llvm.emit_c_interface)");
    MEMJIT_TRY(checkAgainstIR(program, entry, *flagType, flagText));
    MEMJIT_ASSIGN_OR_RETURN(c.signature, signature::describe(entry, *flagType));
    c.cInterface = *address;
  } else {
    if (!fn) {
      if (module.symbol(entry) || module.symbol(ciface))
        return Error(ErrorCode::NotFound, "function '" + entry + "' has no memjit signature metadata: describe it "
                                          "with --signature " + entry + "='<function type>'");
      return Error(ErrorCode::NotFound, "'" + o.file + "' defines no function '" + entry + "'");
    }
    if (!fn->cInterface())
      return Error(ErrorCode::NotFound, "function '" + entry + "' has no C interface '" + ciface +
                                            "', through which memjit call calls it");
    c.signature = fn->signature();
    c.cInterface = fn->cInterface();
    c.keepAlive = *fn;
  }
  if (c.signature.resultAllocator) {
    MEMJIT_ASSIGN_OR_RETURN(c.userType, runtime::userFacingType(c.signature.type));
    if (auto a = jit.lookupSymbol(metadata::symbolName(metadata::kCInterfacePrefix, *c.signature.resultAllocator)))
      c.resultAllocator = *a;
  } else {
    c.userType = c.signature.type;
  }
  return c;
}

std::string inputList(const CallLabels& labels) {
  std::string s;
  for (std::size_t i = 0; i < labels.inputs.size(); ++i) s += (i ? ", " : "") + inputName(labels, i);
  return s.empty() ? "none" : s;
}

// Which --arg text goes to each raw input; then the values, in raw order.
Expected<std::vector<runtime::Variant>> bindArguments(const CallOptions& o, const Callee& c, const CallLabels& labels) {
  const std::size_t n = c.userType.inputs.size();
  const std::string& fn = c.signature.name;
  std::vector<const std::string*> texts(n, nullptr);
  std::size_t nextPositional = 0;
  for (const ArgSpec& a : o.args) {
    std::size_t index;
    if (!a.key) {
      if (nextPositional >= n)
        return Error(ErrorCode::ArityMismatch, "'" + fn + "' takes " + std::to_string(n) + " inputs (" +
                                                   inputList(labels) + "), got more positional --arg values");
      index = nextPositional++;
    } else {
      auto found = findInput(labels, *a.key);
      if (!found)
        return Error(ErrorCode::NotFound, "--arg " + *a.key + "=...: '" + fn + "' has no input '" + *a.key +
                                              "' (its inputs: " + inputList(labels) + ")");
      index = *found;
    }
    if (texts[index])
      return Error(ErrorCode::InvalidArgument, "input '" + inputName(labels, index) + "' is given twice ('" +
                                                   *texts[index] + "' and '" + a.value + "')");
    texts[index] = &a.value;
  }
  std::string missing;
  for (std::size_t i = 0; i < n; ++i)
    if (!texts[i]) missing += (missing.empty() ? "" : ", ") + inputName(labels, i) + " (" + toString(c.userType.inputs[i]) + ")";
  if (!missing.empty())
    return Error(ErrorCode::ArityMismatch, "'" + fn + "' needs a value for: " + missing + "; give --arg NAME=VALUE");
  std::vector<runtime::Variant> values;
  for (std::size_t i = 0; i < n; ++i) {
    MEMJIT_ASSIGN_OR_RETURN(runtime::Variant v, makeArgument(*texts[i], c.userType.inputs[i], inputName(labels, i), i));
    values.push_back(std::move(v));
  }
  return values;
}

std::string formatScalar(const runtime::Scalar& s) {
  char text[64];
  auto shortest = [&](auto v) {
    auto [end, ec] = std::to_chars(text, text + sizeof text, v);
    return std::string(text, ec == std::errc() ? end : text);
  };
  switch (s.type) {
    case ElementType::F64: return shortest(s.f);
    case ElementType::F32: return shortest(static_cast<float>(s.f));
    case ElementType::F16: return shortest(static_cast<float>(f16::fromBits(static_cast<std::uint16_t>(s.u))));
    case ElementType::BF16: return shortest(static_cast<float>(bf16::fromBits(static_cast<std::uint16_t>(s.u))));
    case ElementType::I1: return s.i ? "1" : "0";
    default: return s.str();
  }
}

void printValue(std::ostream& os, const runtime::Variant& v, const Type& type) {
  if (v.isBuffer()) {
    runtime::printMemref(os, v.buffer(), isUnrankedMemRef(type) ? "Unranked Memref " : "Memref ");
  } else if (v.isScalar()) {
    os << formatScalar(v.scalar()) << "\n";
  } else {
    os << v.describe() << "\n";
  }
}

// A rank-0 buffer holding a scalar result, for --out.
Expected<runtime::Buffer> scalarBuffer(const runtime::Scalar& s) {
  MEMJIT_ASSIGN_OR_RETURN(runtime::Buffer b, runtime::Buffer::allocate(s.type, {}));
  if (s.type == ElementType::F32) {
    const float f = static_cast<float>(s.f);
    std::memcpy(b.data(), &f, 4);
  } else {
    std::memcpy(b.data(), &s.u, std::min<std::size_t>(8, b.elementSize()));  // ints, f64, f16/bf16 bits
  }
  return b;
}

Error writeValue(const std::string& path, const runtime::Variant& v, const std::string& what) {
  if (v.isBuffer()) return runtime::writeNpy(path, v.buffer()).withContext(what);
  if (v.isScalar()) {
    MEMJIT_ASSIGN_OR_RETURN(runtime::Buffer b, scalarBuffer(v.scalar()));
    return runtime::writeNpy(path, b).withContext(what);
  }
  return Error(ErrorCode::Unsupported, what + " is " + v.describe() + ": nothing to write");
}

struct Target {
  const runtime::Variant* value;
  const Type* type;
  std::string what;  ///< "result 0", "input 'x'"
  bool isResult;
  std::size_t index;
};

Expected<Target> findTarget(std::string_view flag, const std::string& key, const Callee& c, const CallLabels& labels,
                            const std::vector<runtime::Variant>& results, const std::vector<runtime::Variant>& inputs) {
  if (auto r = findResult(labels, key))
    return Target{&results[*r], &c.userType.results[*r], "result " + std::to_string(*r), true, *r};
  if (auto i = findInput(labels, key))
    return Target{&inputs[*i], &c.userType.inputs[*i], "input '" + inputName(labels, *i) + "'", false, *i};
  return Error(ErrorCode::NotFound, std::string(flag) + " " + key + ": '" + c.signature.name + "' has no result or input '" +
                                        key + "' (" + std::to_string(results.size()) + " results; inputs: " +
                                        inputList(labels) + ")");
}

std::uint64_t memrefBytes(const std::vector<runtime::Variant>& values) {
  std::uint64_t total = 0;
  for (const auto& v : values)
    if (v.isBuffer()) total += static_cast<std::uint64_t>(v.buffer().numElements()) * v.buffer().elementSize();
  return total;
}

Error run(const CallOptions& o, std::ostream& out) {
  MEMJIT_ASSIGN_OR_RETURN(jit::Jit jit, jit::Jit::create({.optLevel = o.optLevel}));
  // The same loader as `memjit run`: .ll, .bc and objects, the shared
  // libraries searched in order before memjit's runner utilities.
  MEMJIT_ASSIGN_OR_RETURN(jit::Program program,
                          jit::loadProgram(jit, o.file, {.optLevel = o.optLevel, .sharedLibraries = o.sharedLibs}));
  program.runConstructors();
  const jit::LoadedModule& module = program.module();
  MEMJIT_ASSIGN_OR_RETURN(std::string entry, chooseEntry(o, module));
  MEMJIT_ASSIGN_OR_RETURN(Callee callee, resolveCallee(o, jit, program, entry));
  MEMJIT_ASSIGN_OR_RETURN(CallLabels labels, callLabels(callee.signature, callee.userType));
  MEMJIT_ASSIGN_OR_RETURN(runtime::Callable fn,
                          runtime::Callable::create(callee.cInterface,
                                                    flatSignature(callee.signature, callee.userType, labels),
                                                    callee.resultAllocator));
  MEMJIT_ASSIGN_OR_RETURN(std::vector<runtime::Variant> inputs, bindArguments(o, callee, labels));

  auto call = [&]() -> Expected<std::vector<runtime::Variant>> {
    MEMJIT_ASSIGN_OR_RETURN(runtime::Variant r, fn.invoke(std::span<const runtime::Variant>(inputs)));
    const std::size_t m = callee.userType.results.size();
    if (m == 0) return std::vector<runtime::Variant>{};
    if (m == 1) return std::vector<runtime::Variant>{std::move(r)};
    return r.items();
  };
  MEMJIT_ASSIGN_OR_RETURN(std::vector<runtime::Variant> results, call());

  std::vector<bool> written(results.size(), false);
  for (const OutSpec& spec : o.outs) {
    if (!spec.key) {
      if (results.size() != 1)
        return Error(ErrorCode::InvalidArgument, "--out " + spec.path + ": '" + entry + "' returns " +
                                                     std::to_string(results.size()) +
                                                     " results; name one with --out KEY=" + spec.path);
      MEMJIT_TRY(writeValue(spec.path, results[0], "result 0"));
      written[0] = true;
      continue;
    }
    MEMJIT_ASSIGN_OR_RETURN(Target t, findTarget("--out", *spec.key, callee, labels, results, inputs));
    MEMJIT_TRY(writeValue(spec.path, *t.value, t.what));
    if (t.isResult) written[t.index] = true;
  }
  if (o.printResults)
    for (std::size_t i = 0; i < results.size(); ++i)
      if (!written[i] || o.forcePrintResults) printValue(out, results[i], callee.userType.results[i]);
  for (const std::string& key : o.prints) {
    MEMJIT_ASSIGN_OR_RETURN(Target t, findTarget("--print", key, callee, labels, results, inputs));
    printValue(out, *t.value, *t.type);
  }

  if (o.benchmarkReps) {
    const std::uint64_t bytes = memrefBytes(inputs) + memrefBytes(results);
    results.clear();  // the first call's results are out; free them
    for (int i = 0; i < o.warmups; ++i) MEMJIT_TRY(call().takeError());
    std::vector<double> seconds;
    for (int i = 0; i < *o.benchmarkReps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      auto r = call();
      const auto stop = std::chrono::steady_clock::now();
      if (!r) return r.error();
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
    }
    out << formatBenchmark(entry, summarize(std::move(seconds)), bytes, o.warmups);
  }
  out.flush();
  return Error::success();
}

}  // namespace

int runCall(const Args& args) {
  auto options = parseCallOptions(args);
  if (!options) return usageError(kName, options.error().message());
  if (options->help) {
    std::cout << callHelp();
    return 0;
  }
  if (Error e = run(*options, std::cout)) return fail(kName, e);
  return 0;
}

}  // namespace memjit::cli
