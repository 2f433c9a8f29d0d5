// Calling a kernel with dicts, nested sequences and keyword arguments, the way
// a Python binding would: the function's metadata says how structured values
// map onto its flat (raw) arguments and results, either as a SIP structure
// (IREE's Structured Index Path) or as V1 `iree.abi` reflection records.
//
// One kernel body, two metadata flavours:
//   (memref<?xf32> x, memref<?xf32> out, f32 scale, f32 shift) -> (f32 lo, f32 hi)
//   out[i] = x[i] * scale + shift; lo/hi are the min/max of out.
#include <cstdio>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/signature/sip_signature.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using runtime::Variant;

static Error addAffine(codegen::Module& m, const char* name, const signature::FunctionSignature& metadata) {
  codegen::FunctionOptions options;
  options.noalias = true;
  options.signature = metadata;  // embedded in the module instead of the default metadata
  codegen::FunctionBuilder b(m, name, metadata.type, options);
  codegen::Value x = b.arg(0), out = b.arg(1), scale = b.arg(2), shift = b.arg(3);
  auto minmax = b.forLoop(b.index(0), b.dim(out, 0), b.index(1), {b.f32(3.4e38f), b.f32(-3.4e38f)},
                          [&](codegen::Value i, const std::vector<codegen::Value>& acc) {
                            codegen::Value v = b.load(x, {i}) * scale + shift;
                            b.store(v, out, {i});
                            return std::vector<codegen::Value>{b.min(acc[0], v), b.max(acc[1], v)};
                          });
  b.ret(minmax);
  return b.finish();
}

// SIP: inputs are `[x, {"scale": raw 2, "shift": raw 3}, out]`, results `{"lo": raw 0, "hi": raw 1}`.
static Expected<std::string> sipMetadata() {
  signature::SipMangler in, out;
  MEMJIT_TRY(in.set(0, {std::int64_t{0}}));
  MEMJIT_TRY(in.set(2, {std::int64_t{1}, std::string("scale")}));
  MEMJIT_TRY(in.set(3, {std::int64_t{1}, std::string("shift")}));
  MEMJIT_TRY(in.set(1, {std::int64_t{2}}));
  MEMJIT_TRY(out.set(0, {std::string("lo")}));
  MEMJIT_TRY(out.set(1, {std::string("hi")}));
  return signature::mangle(signature::SipStructure{in.tree(), out.tree()});
}

// V1 reflection: x and out positional, scale and shift named (so they may be
// passed by keyword), the two results one dict.
static const char* kReflection =
    R"({"a":[["ndarray","f32",1,null],["ndarray","f32",1,null],["named","scale","f32"],["named","shift","f32"]],)"
    R"("r":[["sdict",["lo","f32"],["hi","f32"]]],"v":1})";

static int fail(const std::string& message) {
  std::fprintf(stderr, "structured_call: %s\n", message.c_str());
  return 1;
}

// Checks out == x * 2 + 1 and the {lo, hi} dict result.
static bool check(const char* how, const Variant& result, const std::vector<float>& x, const std::vector<float>& out) {
  for (std::size_t i = 0; i < x.size(); ++i)
    if (out[i] != x[i] * 2.0f + 1.0f) return false;
  const Variant* lo = result.isDict() ? result.find("lo") : nullptr;
  const Variant* hi = result.isDict() ? result.find("hi") : nullptr;
  if (!lo || !hi || lo->toDouble() != -5.0 || hi->toDouble() != 9.0) return false;
  std::printf("%-34s -> %s = {lo: %g, hi: %g}\n", how, result.describe().c_str(), lo->toDouble(), hi->toDouble());
  return true;
}

int main() {
  auto type = parseFunctionType("(memref<?xf32>, memref<?xf32>, f32, f32) -> (f32, f32)");
  if (!type) return fail(type.error().str());
  auto sip = sipMetadata();
  if (!sip) return fail(sip.error().str());
  auto withSip = signature::describe("affine_sip", *type);
  auto withV1 = signature::describe("affine_v1", *type);
  if (!withSip || !withV1) return fail("describe failed");
  withSip->sip = *sip;
  withV1->reflection = kReflection;

  codegen::Module module("structured");
  if (Error e = addAffine(module, "affine_sip", *withSip)) return fail(e.str());
  if (Error e = addAffine(module, "affine_v1", *withV1)) return fail(e.str());
  auto jit = jit::Jit::create();
  if (!jit) return fail(jit.error().str());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error().str());
  auto fSip = loaded->function("affine_sip");
  auto fV1 = loaded->function("affine_v1");
  if (!fSip || !fV1) return fail("lookup failed");
  // The metadata came back from the compiled module, not from this program's variables.
  std::printf("affine_sip  sip      = %s\naffine_v1   iree.abi = %s\n\n", fSip->signature().sip.value_or("").c_str(),
              fV1->signature().reflection.c_str());

  std::vector<float> x{-3, 0, 4, 1}, out(4, 0.0f);
  Variant vx = runtime::makeView(x), vout = runtime::makeView(out);

  // SIP: a sequence with a dict inside; dict keys may come in any order.
  auto r1 = fSip->invoke({vx, Variant::dict({{"shift", 1.0f}, {"scale", 2.0f}}), vout});
  if (!r1) return fail(r1.error().str());
  if (!check("sip   [x, {shift, scale}, out]", *r1, x, out)) return fail("wrong SIP result");

  // V1: positional buffers, scalars by keyword (any order), or all positional.
  std::fill(out.begin(), out.end(), 0.0f);
  // (runtime() is the invoker behind the handle; fV1 keeps the code loaded.)
  auto r2 = fV1->invoke({vx, vout}, {{"shift", 1.0f}, {"scale", 2.0f}});
  if (!r2) return fail(r2.error().str());
  if (!check("v1    (x, out, shift=1, scale=2)", *r2, x, out)) return fail("wrong V1 keyword result");
  std::fill(out.begin(), out.end(), 0.0f);
  auto r3 = fV1->invoke({vx, vout, 2.0f, 1.0f});
  if (!r3) return fail(r3.error().str());
  if (!check("v1    (x, out, 2, 1)", *r3, x, out)) return fail("wrong V1 positional result");

  // Mistakes are errors that name the argument, never crashes.
  auto missing = fV1->invoke({vx, vout}, {{"scale", 2.0f}});
  auto unknown = fSip->invoke({vx, Variant::dict({{"scale", 2.0f}, {"offset", 1.0f}}), vout});
  if (missing || unknown) return fail("a bad call was accepted");
  std::printf("\nmissing keyword : %s\nunknown dict key: %s\n", missing.error().str().c_str(),
              unknown.error().str().c_str());
  return 0;
}
