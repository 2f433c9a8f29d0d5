// PolyBench/C 4.2.1's 30 kernels, each written twice from PolyBench's definitions: once with memjit's kernel
// builder and once as a plain C++ twin of the same loop nest (native/*.cpp, compiled by g++ and by clang, and with
// OpenMP for the kernels whose outer loops are parallel). One description per kernel (sizes per dataset, scalars,
// arrays, initialisation) serves the correctness test (polybench_test.cpp) and the benchmark (bench_polybench.cpp).
//
// Conventions shared by both versions:
//  - Sizes are run-time values (the memrefs are `?x?`, the twins take them as integers), as PolyBench's
//    POLYBENCH_USE_C99_PROTO-less build does not: its C sees compile-time sizes. Both sides here know the same.
//  - Floating point is exact IEEE on both sides: the twins are compiled with -ffp-contract=off and memjit adds no
//    fast-math flags, so where the operation order is the same the results are equal bit for bit.
//  - memjit's kernels state what a memjit user knows and PolyBench's C does not say: the arrays do not alias
//    (FunctionOptions::noalias) and are 64-byte aligned. The twins are PolyBench's C as written (no restrict).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/error.h"
#include "memjit/types.h"

namespace memjit::polybench {

enum class Dataset { Mini, Small, Medium, Large };
const char* datasetName(Dataset d);

/// One array of a kernel: its element type and its dims as indices into the kernel's size parameters.
struct ArraySpec {
  const char* name;
  ElementType type;
  std::vector<int> dims;
  bool output = false;  ///< live-out (what PolyBench prints), compared by the test
};

struct ScalarSpec {
  const char* name;
  ElementType type;  ///< F64 (F32 for deriche's alpha)
};

/// A 64-byte aligned array of bytes.
struct Storage {
  ElementType type = ElementType::F64;
  std::vector<std::int64_t> shape;
  std::size_t bytes = 0;
  std::unique_ptr<std::byte, void (*)(void*)> data{nullptr, nullptr};
  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data.get());
  }
  std::int64_t elements() const;
};

/// A kernel's inputs for one run: its sizes, scalars and arrays.
struct Data {
  std::vector<std::int64_t> p;
  std::vector<double> s;
  std::vector<Storage> a;
  double* f64(std::size_t i) const { return a[i].as<double>(); }
  float* f32(std::size_t i) const { return a[i].as<float>(); }
  std::int32_t* i32(std::size_t i) const { return a[i].as<std::int32_t>(); }
};

/// The C ABI of every twin: sizes, scalars (as doubles), array base pointers, in the description's order.
using Twin = void (*)(const std::int64_t* sizes, const double* scalars, void* const* arrays);

/// Builds the memjit kernel `name`; with `parallel`, its parallel outer loops become parallelFor.
struct Kernel;
using Build = Error (*)(codegen::Module& m, const std::string& name, const Kernel& k,
                        const codegen::FunctionOptions& options, bool parallel);

struct Kernel {
  const char* name;
  std::vector<const char*> sizeNames;
  std::array<std::vector<std::int64_t>, 4> sizes;  ///< per Dataset, from PolyBench's header
  std::vector<ScalarSpec> scalars;
  std::vector<ArraySpec> arrays;
  void (*init)(Data&);
  Build build;
  Twin gcc, clang;
  Twin omp = nullptr;  ///< the OpenMP twin; set where the memjit kernel has a parallel form
};

/// All 30, in PolyBench's order (datamining, blas, kernels, solvers, medley, stencils).
const std::vector<Kernel>& kernels();

/// `(f64, ..., memref<?x?xf64>, ...) -> ()` for the kernel's scalars and arrays.
std::string functionType(const Kernel& k);

/// Allocated and initialised by the kernel's init function.
Data makeData(const Kernel& k, Dataset d);
/// The same arrays' bytes copied from `from` (same kernel and dataset).
void copyArrays(const Data& from, Data& to);

void runTwin(Twin t, Data& d);

// The per-category parts of the registry (one file each).
std::vector<Kernel> datamining();
std::vector<Kernel> blas();
std::vector<Kernel> linearAlgebraKernels();
std::vector<Kernel> solvers();
std::vector<Kernel> medley();
std::vector<Kernel> stencils();

}  // namespace memjit::polybench

namespace memjit::jit {
class Jit;
class Function;
}  // namespace memjit::jit

namespace memjit::polybench {

/// How memjit's build of a kernel is compiled.
enum class Flavor { Serial, Parallel, Checked };

/// The options every memjit build uses: the arrays do not alias and are 64-byte aligned (Storage), and checked
/// mode for Flavor::Checked.
codegen::FunctionOptions functionOptions(const Kernel& k, Flavor f);

/// Builds `k` in its own module and compiles it into `jit` (at the Jit's level).
Expected<jit::Function> compile(jit::Jit& jit, const Kernel& k, Flavor f);

/// Calls a compiled kernel on `d` through the dynamic invoker (a checked kernel's failure is the Error).
Error run(const jit::Function& fn, const Kernel& k, Data& d);

}  // namespace memjit::polybench
