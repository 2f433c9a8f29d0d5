// Calling code that MLIR compiled, from C++, through memjit's dynamic invoker.
//
// The kernel below is plain MLIR (func/scf/memref/arith). The MLIR 19 tools
// lower it to LLVM IR (mlir-opt-19, mlir-translate-19); memjit's JIT compiles
// that IR; the only thing memjit is told about the function is its MLIR type
// text, from which the invoker packs descriptors, checks arguments and takes
// ownership of the buffer MLIR malloc'd for the result. Without the MLIR
// tools on PATH the example says so and exits 0.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "memjit/jit/jit.h"
#include "memjit/runtime/callable.h"
#include "memjit/runtime/print.h"

using namespace memjit;
namespace fs = std::filesystem;

// y = s * x in a new buffer, and the sum of y.
static const char* kMlir = R"mlir(
func.func @scale_sum(%x: memref<?xf32>, %s: f32) -> (memref<?xf32>, f32) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %y = memref.alloc(%n) {alignment = 64 : i64} : memref<?xf32>
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<?xf32>
    %p = arith.mulf %v, %s : f32
    memref.store %p, %y[%i] : memref<?xf32>
    %a = arith.addf %acc, %p : f32
    scf.yield %a : f32
  }
  return %y, %sum : memref<?xf32>, f32
}
)mlir";
static const char* kType = "(memref<?xf32>, f32) -> (memref<?xf32>, f32)";

static bool onPath(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

static int fail(const std::string& message) {
  std::fprintf(stderr, "mlir_object: %s\n", message.c_str());
  return 1;
}

// MLIR text -> LLVM IR text with the MLIR 19 tools, in a private temp folder.
static Expected<std::string> lowerWithMlirTools(const std::string& mlir) {
  std::string dirTemplate = (fs::temp_directory_path() / "memjit-mlir-XXXXXX").string();
  if (!mkdtemp(dirTemplate.data())) return Error(ErrorCode::IoError, "cannot make a temp folder");
  fs::path dir = dirTemplate;
  std::ofstream(dir / "k.mlir") << mlir;
  std::string cmd = "mlir-opt-19 --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm "
                    "--convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm "
                    "--reconcile-unrealized-casts " + (dir / "k.mlir").string() + " -o " + (dir / "k.llvm.mlir").string() +
                    " && mlir-translate-19 --mlir-to-llvmir " + (dir / "k.llvm.mlir").string() + " -o " +
                    (dir / "k.ll").string();
  int rc = std::system(cmd.c_str());
  std::stringstream ir;
  ir << std::ifstream(dir / "k.ll").rdbuf();
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  if (rc != 0) return Error(ErrorCode::CompileError, "the MLIR tools failed: " + cmd);
  return ir.str();
}

int main() {
  if (!onPath("mlir-opt-19") || !onPath("mlir-translate-19")) {
    std::printf("SKIPPED: mlir-opt-19 / mlir-translate-19 not on PATH (apt install mlir-19-tools)\n");
    return 0;
  }
  auto ir = lowerWithMlirTools(kMlir);
  if (!ir) return fail(ir.error().str());

  auto jit = jit::Jit::create({.optLevel = jit::OptLevel::O2});
  if (!jit) return fail(jit.error().str());
  auto loaded = jit->addIR(*ir, "scale_sum");
  if (!loaded) return fail(loaded.error().str());
  // MLIR's output carries no memjit metadata: give the invoker the type text.
  auto address = loaded->symbol("_mlir_ciface_scale_sum");
  if (!address) return fail(address.error().str());
  auto fn = runtime::Callable::fromTypeText(*address, "scale_sum", kType);
  if (!fn) return fail(fn.error().str());
  std::printf("scale_sum : %s\nraw ABI   : %s\n", kType, fn->signature().raw.c_str());

  // A strided input (every other element of `storage`): MLIR's identity
  // layout needs contiguous data, so the invoker copies it in first.
  std::vector<float> storage{1, -1, 2, -1, 3, -1, 4, -1, 5, -1};
  auto x = runtime::Buffer::view(ElementType::F32, storage.data(), {5}, {2});
  if (!x) return fail(x.error().str());
  auto result = fn->invoke({*x, 1.5f});
  if (!result) return fail(result.error().str());

  // Two results come back as a tuple: an owned buffer and a scalar.
  const runtime::Buffer& y = (*result)[0].buffer();
  double sum = (*result)[1].toDouble();
  std::printf("y = %s", runtime::formatMemref(y, "").c_str());
  std::printf("sum = %g, y owned by the caller: %s\n", sum, y.owning() ? "yes" : "no");
  const float* py = static_cast<const float*>(y.data());
  for (int i = 0; i < 5; ++i)
    if (py[i] != 1.5f * float(i + 1)) return fail("y[" + std::to_string(i) + "] = " + std::to_string(py[i]));
  if (sum != 22.5 || !y.owning() || y.describe() != "float32[5]") return fail("wrong sum or result buffer");

  // Arguments are checked against the type; a mismatch is an error, not a crash.
  std::vector<double> wrong(3, 0.0);
  auto bad = fn->invoke({runtime::makeView(wrong), 1.0f});
  if (bad) return fail("a memref<?xf64> was accepted for memref<?xf32>");
  std::printf("a f64 buffer is refused: %s\n", bad.error().str().c_str());
  return 0;
}
