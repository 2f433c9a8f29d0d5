// What the C++ snippets of README.md and docs/*.md use without declaring it.
// tests/docs/docs_code.py compiles a block marked `<!-- snippet: NAME -->`
// as the body of a function returning memjit::Error, with namespace
// docs_context::NAME in scope. The declarations are never defined: the
// snippets are compiled, not run, so that a renamed API breaks the build of
// memjit_doc_snippets (ctest docs.snippets).
#pragma once

#include <cstdint>
#include <cstdio>
#include <tuple>
#include <vector>

#include "memjit/codegen/allocator_companion.h"
#include "memjit/codegen/builder.h"
#include "memjit/codegen/module.h"
#include "memjit/jit/directory_cache.h"
#include "memjit/jit/function.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/loaded_module.h"
#include "memjit/jit/object_cache.h"
#include "memjit/jit/program.h"
#include "memjit/jit/redis_cache.h"
#include "memjit/jit/tiering.h"
#include "memjit/runtime/buffer.h"
#include "memjit/runtime/callable.h"
#include "memjit/runtime/half.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/owned_memref.h"
#include "memjit/runtime/variant.h"
#include "memjit/type_syntax.h"

namespace docs_context {

// Inside a generator function: a module, a builder and values of its body
// (docs/kernel-language.md, parallel-loops.md, vectors.md).
namespace builder {
using namespace memjit;
using namespace memjit::codegen;
extern Module& m;
extern FunctionBuilder& b;
extern Value x, y, a, n, lo, one, rows, cols, image;   // parallel loops
extern Value kc, aPack, bPack, C, M, row0, col0;       // the sgemm micro-kernel
extern unsigned MR;
}  // namespace builder

// Calling compiled code (docs/runtime.md): function pointers, signatures,
// callables and the data passed to them.
namespace runtime {
using memjit::bf16;
using memjit::Error;
using memjit::Expected;
using memjit::f16;
using namespace memjit::runtime;
extern "C" void _mlir_ciface_axpy(float, StridedMemRef<float, 1>*, StridedMemRef<float, 1>*);
extern void* ptr;
extern void* allocPtr;
extern memjit::signature::FunctionSignature signature;
extern Expected<Callable> fn, fn3, fn4;
extern std::vector<float> x, y;
extern Buffer buffer, ids, mask;
}  // namespace runtime

// A checked kernel, built and then called (docs/checked-mode.md).
namespace checked {
using namespace memjit;
using Mat = runtime::StridedMemRef<float, 2>;
extern codegen::Module& m;
extern FunctionType type;
extern Expected<jit::LoadedModule> mod;
extern Expected<jit::Function> fn;
extern Mat in, w, out;
}  // namespace checked

// A module the JIT compiled (docs/jit-and-aot.md).
namespace compiling {
using namespace memjit;
extern Expected<jit::LoadedModule> mod;
}  // namespace compiling

// A kernel module about to be handed to a tiered Jit (docs/jit-and-aot.md).
namespace tiering {
using namespace memjit;
extern codegen::Module module;
extern runtime::StridedMemRef<float, 1> a, b, out;
}  // namespace tiering
// Looking at what the compiler made of a module (docs/slow-kernels.md).
namespace inspecting {
using namespace memjit;
extern jit::Jit& engine;
extern codegen::Module module;
}  // namespace inspecting

// Running a program file from C++ (docs/running-programs.md).
namespace program {
using memjit::cantFail;
extern std::vector<float> values;
}  // namespace program

// Making a cache shared by a fleet (docs/fleet-cache.md).
namespace fleet {
using namespace memjit;
extern jit::Jit engine;
std::vector<codegen::Module> buildKernels();
}  // namespace fleet

}  // namespace docs_context
