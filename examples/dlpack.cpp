// DLPack in and out: tensors from another framework (NumPy, PyTorch, JAX all
// speak DLPack) go into a memjit kernel without copying, and a buffer the
// kernel allocated goes back out as a DLManagedTensor whose deleter frees it.
//
// Here a small "producer" stands in for the framework: it hands out managed
// tensors and counts how often their deleters run, so the example can check
// that every owner releases exactly once.
#include <cstdio>
#include <string>
#include <vector>

#include <dlpack/dlpack.h>

#include "memjit/codegen/kernels.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/dlpack.h"

using namespace memjit;
using runtime::Variant;

static int deleterCalls = 0;

// What a framework's `__dlpack__()` gives: a managed 1-D float tensor.
struct ProducerTensor {
  std::vector<float> data;
  std::int64_t shape[1];
  DLManagedTensor managed{};
};
static DLManagedTensor* produce(std::vector<float> values) {
  auto* t = new ProducerTensor{std::move(values), {0}, {}};
  t->shape[0] = static_cast<std::int64_t>(t->data.size());
  t->managed.dl_tensor.data = t->data.data();
  t->managed.dl_tensor.device = {kDLCPU, 0};
  t->managed.dl_tensor.ndim = 1;
  t->managed.dl_tensor.dtype = {kDLFloat, 32, 1};
  t->managed.dl_tensor.shape = t->shape;
  t->managed.dl_tensor.strides = nullptr;  // row-major
  t->managed.manager_ctx = t;
  t->managed.deleter = [](DLManagedTensor* self) {
    ++deleterCalls;
    delete static_cast<ProducerTensor*>(self->manager_ctx);
  };
  return &t->managed;
}

static int fail(const std::string& message) {
  std::fprintf(stderr, "dlpack: %s\n", message.c_str());
  return 1;
}

int main() {
  codegen::Module module("dlpack");
  if (Error e = codegen::addScaledCopy(module, "scaled_copy")) return fail(e.str());  // (memref<?xf32>, f32) -> memref<?xf32>
  if (Error e = codegen::addSum(module, "sum")) return fail(e.str());                  // (memref<?xf32>) -> f32
  auto jit = jit::Jit::create();
  if (!jit) return fail(jit.error().str());
  auto loaded = jit->add(std::move(module));
  if (!loaded) return fail(loaded.error().str());
  auto scaledCopy = loaded->function("scaled_copy");
  auto sum = loaded->function("sum");
  if (!scaledCopy || !sum) return fail("lookup failed");

  DLManagedTensor* exported = nullptr;
  {
    // In: memjit adopts the managed tensor (zero copy) and will call its deleter once.
    auto x = Variant::adoptDLPack(produce({1, 2, 3, 4, 5}));
    if (!x) return fail(x.error().str());
    auto y = scaledCopy->invoke({*x, 10.0f});
    if (!y) return fail(y.error().str());
    std::printf("scaled_copy(x, 10) -> %s, owned by memjit: %s\n", y->describe().c_str(),
                y->buffer().owning() ? "yes" : "no");
    // Out: the kernel's malloc'd result leaves as a managed tensor.
    auto out = runtime::toDLPack(y->buffer());
    if (!out) return fail(out.error().str());
    exported = *out;
  }  // x is gone: the producer's deleter has run; y's memory lives on in `exported`
  if (deleterCalls != 1) return fail("the input's deleter ran " + std::to_string(deleterCalls) + " times");

  // The consumer side: read the tensor through nothing but dlpack.h.
  const DLTensor& t = exported->dl_tensor;
  if (t.ndim != 1 || t.shape[0] != 5 || t.dtype.code != kDLFloat || t.dtype.bits != 32) return fail("bad tensor");
  const float* values = reinterpret_cast<const float*>(static_cast<const char*>(t.data) + t.byte_offset);
  std::printf("consumer sees float32[%ld]:", long(t.shape[0]));
  for (int i = 0; i < 5; ++i) {
    std::printf(" %g", double(values[i]));
    if (values[i] != 10.0f * float(i + 1)) return fail("wrong value at " + std::to_string(i));
  }
  std::printf("\n");
  exported->deleter(exported);  // frees the kernel's allocation (the allocated pointer, not the aligned one)

  // A strided, non-owning DLTensor (every third element of a row-major array):
  // viewed without copying, then packed for the kernel's identity layout.
  std::vector<float> storage{1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0};
  std::int64_t shape[1] = {4}, strides[1] = {3};
  DLTensor view{};
  view.data = storage.data();
  view.device = {kDLCPU, 0};
  view.ndim = 1;
  view.dtype = {kDLFloat, 32, 1};
  view.shape = shape;
  view.strides = strides;
  auto v = Variant::fromDLPack(view);
  if (!v) return fail(v.error().str());
  auto s = sum->invoke({*v});
  if (!s) return fail(s.error().str());
  std::printf("sum of a stride-3 view = %g\n", s->toDouble());
  if (s->toDouble() != 10.0) return fail("wrong sum");

  // A tensor of the wrong dtype is refused with a message, not misread.
  std::vector<std::int32_t> ints{1, 2, 3, 4};
  view.data = ints.data();
  view.dtype = {kDLInt, 32, 1};
  view.strides = nullptr;
  auto wrong = Variant::fromDLPack(view);
  if (!wrong) return fail(wrong.error().str());
  auto refused = sum->invoke({*wrong});
  if (refused) return fail("an int32 tensor was accepted for memref<?xf32>");
  std::printf("int32 tensor refused: %s\n", refused.error().str().c_str());
  return 0;
}
