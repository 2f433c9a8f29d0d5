// Kernels calling back into your C++ code. Two kinds of callee:
//   - a scalar C function (`float softclip(float)`), called with callC;
//   - a function taking a buffer, declared with an MLIR type and called with
//     MLIR's convention: the C++ side receives a `_mlir_ciface_` descriptor
//     pointer, here a view of one row of the kernel's matrix, at its offset.
// Both are registered with the Jit under the names the kernel uses.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using codegen::Value;
using Row = runtime::StridedMemRef<float, 1>;

// --- the user's C++ code ---
static float softclip(float x) { return x / (1.0f + std::fabs(x)); }

// Scales a row in place so that its largest magnitude is 4, and remembers
// which rows it saw.
static std::vector<long> rowsSeen;
static void rowHook(Row* row, std::int64_t index) {
  float big = 0;
  for (std::int64_t j = 0; j < row->sizes[0]; ++j) big = std::fmax(big, std::fabs((*row)({j})));
  if (big > 0)
    for (std::int64_t j = 0; j < row->sizes[0]; ++j) (*row)({j}) *= 4.0f / big;
  rowsSeen.push_back(long(index));
}

// --- the kernel: for each row, row_hook(row, i); then m[i][j] = softclip(m[i][j]); returns the sum ---
static const char* kRowType = "memref<?xf32, strided<[1], offset: ?>>";

static Error buildKernel(codegen::Module& m) {
  MEMJIT_ASSIGN_OR_RETURN(FunctionType hookType, parseFunctionType(std::string("(") + kRowType + ", index) -> ()"));
  MEMJIT_ASSIGN_OR_RETURN(Type rowType, parseType(kRowType));
  // Declared, not defined: the module calls `_mlir_ciface_row_hook`, which the Jit resolves.
  MEMJIT_TRY(codegen::declareExternalFunction(m, "row_hook", hookType).takeError());

  MEMJIT_ASSIGN_OR_RETURN(FunctionType type, parseFunctionType("(memref<?x?xf32>) -> f32"));
  codegen::FunctionBuilder b(m, "process", type);
  Value mat = b.arg(0);
  Value rows = b.dim(mat, 0), cols = b.dim(mat, 1), zero = b.index(0), one = b.index(1);
  auto total = b.forLoop(zero, rows, one, {b.f32(0.0f)}, [&](Value i, const std::vector<Value>& acc) {
    // Row i as a 1-D view of the same memory (offset i * cols).
    Value row = b.reinterpretCast(mat, std::get<MemRefType>(rowType), i * cols, {cols}, {1});
    b.call("row_hook", {row, i});
    auto rowSum = b.forLoop(zero, cols, one, {acc[0]}, [&](Value j, const std::vector<Value>& s) {
      Value v = b.callC("softclip", ElementType::F32, {b.load(mat, {i, j})});
      b.store(v, mat, {i, j});
      return std::vector<Value>{s[0] + v};
    });
    return rowSum;
  });
  b.ret(total);
  return b.finish();
}

static int fail(const std::string& message) {
  std::fprintf(stderr, "callback: %s\n", message.c_str());
  return 1;
}

int main() {
  auto jit = jit::Jit::create();
  if (!jit) return fail(jit.error().str());
  // Register before adding the module: its symbols are resolved when it is added.
  if (Error e = jit->registerSymbol("softclip", reinterpret_cast<void*>(&softclip))) return fail(e.str());
  if (Error e = jit->registerSymbol("_mlir_ciface_row_hook", reinterpret_cast<void*>(&rowHook))) return fail(e.str());

  codegen::Module module("callbacks");
  if (Error e = buildKernel(module)) return fail(e.str());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error().str());
  auto process = loaded->function("process");
  if (!process) return fail(process.error().str());
  auto call = process->as<float(runtime::StridedMemRef<float, 2>)>();
  if (!call) return fail(call.error().str());

  const std::int64_t R = 3, C = 5;
  std::vector<float> data(R * C), expect(R * C);
  for (std::int64_t k = 0; k < R * C; ++k) data[k] = float(k % 7) - 3.0f + 0.5f * float(k / C);
  // The same computation in plain C++.
  float expectTotal = 0;
  expect = data;
  for (std::int64_t i = 0; i < R; ++i) {
    Row row = runtime::makeView(expect.data() + i * C, std::array<std::int64_t, 1>{C});
    rowHook(&row, i);
    for (std::int64_t j = 0; j < C; ++j) expectTotal += expect[i * C + j] = softclip(expect[i * C + j]);
  }
  rowsSeen.clear();

  float total = (*call)(runtime::makeView(data, std::array<std::int64_t, 2>{R, C}));
  std::printf("process(m) = %g, row_hook saw rows", double(total));
  for (long r : rowsSeen) std::printf(" %ld", r);
  std::printf("\n");
  if (rowsSeen != std::vector<long>{0, 1, 2}) return fail("row_hook was not called once per row");
  if (std::fabs(total - expectTotal) > 1e-4f) return fail("total " + std::to_string(total) + " != " + std::to_string(expectTotal));
  for (std::int64_t k = 0; k < R * C; ++k)
    if (std::fabs(data[k] - expect[k]) > 1e-6f) return fail("element " + std::to_string(k) + " differs");
  std::printf("matches the same computation in C++\n");
  return 0;
}
