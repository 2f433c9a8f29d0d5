#include "memjit/codegen/allocator_companion.h"

#include <algorithm>
#include <optional>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>

#include "memjit/codegen/lowering.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"
#include "builder_util.h"
#include "module_impl.h"

namespace memjit::codegen {

namespace {

// How the allocator computes one dim: a constant or one of its arguments.
struct DimSource {
  bool fromArgument = false;
  std::int64_t constant = 0;
  std::size_t argument = 0;
};

struct Plan {
  FunctionType allocatorType;
  // Per destination: empty when absent, else one source per dynamic dim.
  std::vector<std::optional<std::vector<DimSource>>> sizes;
};

std::string resultName(const FunctionType& t, std::size_t r) {
  return "result #" + std::to_string(r) + " (" + toString(t.results[r]) + ")";
}

Error fail(ErrorCode code, std::string_view function, const std::string& what) {
  return Error(code, "result allocator for '" + std::string(function) + "': " + what);
}

std::vector<std::size_t> rankedMemRefResults(const FunctionType& type) {
  std::vector<std::size_t> memrefResults;
  for (std::size_t r = 0; r < type.results.size(); ++r)
    if (isRankedMemRef(type.results[r])) memrefResults.push_back(r);
  return memrefResults;
}

// F must end its inputs with one destination per ranked memref result, of
// the result's type, and be given one shape per such result.
Error checkDestinations(std::string_view fn, const FunctionType& type, const std::vector<std::size_t>& memrefResults,
                        std::size_t shapes) {
  const std::size_t k = memrefResults.size();
  if (k == 0)
    return fail(ErrorCode::InvalidArgument, fn, toString(type) + " has no ranked memref result to allocate");
  if (type.inputs.size() < k)
    return fail(ErrorCode::ArityMismatch, fn,
                toString(type) + " has " + std::to_string(k) + " ranked memref results but only " +
                    std::to_string(type.inputs.size()) + " inputs: it must take one destination per result");
  const std::size_t n = type.inputs.size() - k;
  for (std::size_t j = 0; j < k; ++j)
    if (!(type.inputs[n + j] == type.results[memrefResults[j]]))
      return fail(ErrorCode::TypeMismatch, fn,
                  "input #" + std::to_string(n + j) + " is " + toString(type.inputs[n + j]) +
                      " but the destination of " + resultName(type, memrefResults[j]) +
                      " must have the result's type");
  if (shapes != k)
    return fail(ErrorCode::ArityMismatch, fn,
                std::to_string(shapes) + " result shapes given for " + std::to_string(k) +
                    " ranked memref results of " + toString(type));
  return Error::success();
}

// Adds the allocator's arguments, the dynamic dims of the ranked memref
// inputs among the first n; returns [input][dim] -> argument (dynamic dims only).
std::vector<std::vector<std::size_t>> addDimArguments(const FunctionType& type, std::size_t n,
                                                      FunctionType& allocatorType) {
  std::vector<std::vector<std::size_t>> argOf(n);
  for (std::size_t i = 0; i < n; ++i)
    if (const auto* m = std::get_if<MemRefType>(&type.inputs[i])) {
      argOf[i].assign(m->rank(), 0);
      for (std::size_t d = 0; d < m->rank(); ++d)
        if (m->isDynamicDim(d)) {
          argOf[i][d] = allocatorType.inputs.size();
          allocatorType.inputs.push_back(ElementType::Index);
        }
    }
  return argOf;
}

// What the dim rules of one function are checked against.
struct RuleContext {
  std::string_view fn;
  const FunctionType& type;
  std::size_t n;  // the inputs before the destinations
  const std::vector<std::vector<std::size_t>>& argOf;
};

// Where a rule takes its size from, and the size when it is a constant.
struct RuleSize {
  DimSource source;
  std::optional<std::int64_t> known;
};

Expected<RuleSize> ruleSize(const RuleContext& c, const ResultDim& rule, const std::string& where) {
  RuleSize s;
  if (rule.kind == ResultDim::Kind::Static) {
    if (rule.size < 0)
      return fail(ErrorCode::InvalidArgument, c.fn, where + ": static size " + std::to_string(rule.size) + " is negative");
    s.known = rule.size;
    s.source.constant = rule.size;
    return s;
  }
  const std::string in = "input #" + std::to_string(rule.input);
  if (rule.input >= c.n)
    return fail(ErrorCode::InvalidArgument, c.fn,
                where + ": " + in + " does not exist (the function has " + std::to_string(c.n) +
                    " inputs before its destinations)");
  const auto* m = std::get_if<MemRefType>(&c.type.inputs[rule.input]);
  if (!m)
    return fail(ErrorCode::TypeMismatch, c.fn,
                where + ": " + in + " is " + toString(c.type.inputs[rule.input]) +
                    ", not a ranked memref, so its dims are not passed to the allocator");
  if (rule.dim >= m->rank())
    return fail(ErrorCode::InvalidArgument, c.fn,
                where + ": " + in + " (" + toString(*m) + ") has no dim " + std::to_string(rule.dim));
  if (m->isDynamicDim(rule.dim)) {
    s.source.fromArgument = true;
    s.source.argument = c.argOf[rule.input][rule.dim];
  } else {
    s.known = m->dim(rule.dim);
    s.source.constant = *s.known;
  }
  return s;
}

// The sources of the dynamic dims of result #r (of type rt) from its shape's
// rules; a static dim's rule must agree with it.
Expected<std::vector<DimSource>> dimSources(const RuleContext& c, std::size_t r, const MemRefType& rt,
                                            const ResultShape& shape) {
  if (!rt.hasIdentityLayout() || rt.memorySpace() != 0)
    return fail(ErrorCode::Unsupported, c.fn,
                resultName(c.type, r) + " cannot be allocated: only identity layouts in memory space 0 can "
                                        "(declare it data-dependent to let the function allocate it)");
  if (shape.dims.empty() && !rt.hasStaticShape())
    return fail(ErrorCode::ArityMismatch, c.fn, "no dim rules for " + resultName(c.type, r) + ", which has dynamic dims");
  if (!shape.dims.empty() && shape.dims.size() != rt.rank())
    return fail(ErrorCode::ArityMismatch, c.fn,
                std::to_string(shape.dims.size()) + " dim rules for " + resultName(c.type, r) + " of rank " +
                    std::to_string(rt.rank()));
  std::vector<DimSource> sources;
  for (std::size_t d = 0; d < shape.dims.size(); ++d) {
    const ResultDim& rule = shape.dims[d];
    const std::string where = "dim " + std::to_string(d) + " of " + resultName(c.type, r);
    MEMJIT_ASSIGN_OR_RETURN(const RuleSize size, ruleSize(c, rule, where));
    if (rt.isDynamicDim(d)) {
      sources.push_back(size.source);
      continue;
    }
    if (size.known && *size.known != rt.dim(d))  // static dims are allocated at their static size
      return fail(ErrorCode::TypeMismatch, c.fn,
                  where + " is static " + std::to_string(rt.dim(d)) + " but the rule gives " +
                      std::to_string(*size.known) +
                      (rule.kind == ResultDim::Kind::InputDim
                           ? " (dim " + std::to_string(rule.dim) + " of input #" + std::to_string(rule.input) + ")"
                           : std::string()));
  }
  return sources;
}

// Checks F's type and the rules against each other; computes what the
// allocator's body needs.
Expected<Plan> plan(std::string_view fn, const FunctionType& type, const std::vector<ResultShape>& results) {
  const std::vector<std::size_t> memrefResults = rankedMemRefResults(type);
  MEMJIT_TRY(checkDestinations(fn, type, memrefResults, results.size()));
  Plan p;
  const std::size_t n = type.inputs.size() - memrefResults.size();
  const auto argOf = addDimArguments(type, n, p.allocatorType);
  const RuleContext rules{fn, type, n, argOf};
  for (std::size_t j = 0; j < memrefResults.size(); ++j) {
    const std::size_t r = memrefResults[j];
    const auto& rt = std::get<MemRefType>(type.results[r]);
    p.allocatorType.results.push_back(rt);
    if (results[j].dataDependent) {
      p.sizes.emplace_back();
      continue;
    }
    MEMJIT_ASSIGN_OR_RETURN(std::vector<DimSource> sources, dimSources(rules, r, rt, results[j]));
    p.sizes.emplace_back(std::move(sources));
  }
  return p;
}

}  // namespace

Value destinationOrAlloc(FunctionBuilder& b, const Value& destination, const std::vector<Value>& dynamicSizes,
                         unsigned alignment) {
  if (!detail::checkOperands(b, "destinationOrAlloc", {&destination})) return {};
  const auto* t = std::get_if<MemRefType>(&destination.type());
  if (!t) {
    detail::fail(b, Error(ErrorCode::TypeMismatch, "operation 'destinationOrAlloc': the destination must be a "
                                                   "ranked memref, got " + toString(destination.type())));
    return {};
  }
  auto& ir = b.ir();
  llvm::Value* allocated = ir.CreateExtractValue(destination.llvm(), {0}, "dest.allocated");
  Value present = b.wrap(ir.CreateIsNotNull(allocated, "dest.present"), ElementType::I1);
  std::vector<Value> r = b.ifElse(
      present, [&] { return std::vector<Value>{destination}; },
      [&] { return std::vector<Value>{b.alloc(*t, dynamicSizes, alignment)}; });
  return r.empty() ? Value() : r[0];
}

Expected<LoweredFunction> addResultAllocator(Module& module, std::string_view function,
                                             const std::vector<ResultShape>& results,
                                             const ResultAllocatorOptions& options) {
  MEMJIT_TRY(ModuleAccess::checkLive(module));
  auto& impl = ModuleAccess::impl(module);
  MEMJIT_ASSIGN_OR_RETURN(LoweredFunction f, lookupFunction(module, function));
  if (f.external)
    return fail(ErrorCode::InvalidArgument, function,
                "the function is external; emit the allocator in the module that defines it");
  if (f.options.lowering.barePtr)
    return fail(ErrorCode::Unsupported, function,
                "the function uses bare pointers; destinations need the memref descriptor convention");
  auto sig = std::find_if(impl.signatures.begin(), impl.signatures.end(),
                          [&](const signature::FunctionSignature& s) { return s.name == function; });
  if (sig == impl.signatures.end())
    return fail(ErrorCode::Internal, function, "the function has no metadata in module '" + impl.name + "'");
  const std::string name =
      options.name.empty() ? std::string(function) + "__allocate_results" : options.name;
  if (!isValidSymbolName(name))
    return fail(ErrorCode::InvalidArgument, function, "'" + name + "' is not a valid function name");
  if (sig->resultAllocator && *sig->resultAllocator != name)
    return fail(ErrorCode::InvalidArgument, function,
                "the function's signature already names the allocator '" + *sig->resultAllocator + "', not '" +
                    name + "'");
  if (lookupFunction(module, name))
    return fail(ErrorCode::InvalidArgument, function, "module '" + impl.name + "' already declares '" + name + "'");
  if (options.alignment == 0 || (options.alignment & (options.alignment - 1)) != 0)
    return fail(ErrorCode::InvalidArgument, function,
                "alignment " + std::to_string(options.alignment) + " is not a power of two");
  MEMJIT_ASSIGN_OR_RETURN(Plan p, plan(function, f.type, results));

  FunctionOptions ao;
  ao.lowering = f.options.lowering;
  ao.emitCInterface = true;
  FunctionBuilder b(module, name, p.allocatorType, ao);
  std::vector<Value> out;
  for (std::size_t j = 0; j < p.sizes.size(); ++j) {
    const auto& rt = std::get<MemRefType>(p.allocatorType.results[j]);
    if (!p.sizes[j]) {
      // Absent: null pointers, zero offset, sizes and strides.
      llvm::Type* desc = descriptorType(module.context(), rt, ao.lowering);
      out.push_back(b.wrap(llvm::Constant::getNullValue(desc), rt));
      continue;
    }
    std::vector<Value> dyn;
    for (const DimSource& s : *p.sizes[j]) dyn.push_back(s.fromArgument ? b.arg(s.argument) : b.index(s.constant));
    out.push_back(b.alloc(rt, dyn, options.alignment));
  }
  b.ret(out);
  if (Error e = b.finish()) return e.withContext("result allocator '" + name + "' for '" + std::string(function) + "'");

  // F's signature names the allocator: `_memjit_fbr_<F>`. Found again: the
  // allocator's own metadata was appended to the vector since.
  for (auto& s : impl.signatures)
    if (s.name == function) s.resultAllocator = name;
  if (auto it = impl.functions.find(function); it != impl.functions.end() && it->second.options.signature)
    it->second.options.signature->resultAllocator = name;
  llvm::Module& m = *impl.module;
  const std::string symbol = metadata::symbolName(metadata::kAllocatorPrefix, function);
  if (!m.getGlobalVariable(symbol)) {
    llvm::Constant* init = llvm::ConstantDataArray::getString(m.getContext(), name, true);
    auto* gv = new llvm::GlobalVariable(m, init->getType(), true, llvm::GlobalValue::ExternalLinkage, init, symbol);
    gv->setAlignment(llvm::Align(1));
  }
  return lookupFunction(module, name);
}

}  // namespace memjit::codegen
