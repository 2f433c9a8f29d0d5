// Calls kernels compiled ahead of time. This program links only the
// generated library and memjit::runtime: no LLVM is loaded (checked below).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

// [docs:wrappers]
#include "aot_kernels.h"  // generated: declarations, wrappers, metadata

using Vec = memjit::runtime::StridedMemRef<float, 1>;
using Mat = memjit::runtime::StridedMemRef<float, 2>;

int main() {
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    if (!ok) {
      std::fprintf(stderr, "FAILED: %s\n", what);
      ++failures;
    }
  };

  // The wrappers take vectors, spans, descriptors or owned memrefs by value.
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40}, c(4);
  aot_kernels::add(a, b, c);
  check(c == std::vector<float>({11, 22, 33, 44}), "add");
  check(aot_kernels::sum(b) == 100.0f, "sum");

  // A fresh result comes back owned (freed with its last copy); parameters
  // carry the names the generator gave: scaled(values, factor).
  memjit::runtime::OwnedMemRef<float, 1> scaled = aot_kernels::scaled(a, 0.5f);
  check(scaled.owning() && scaled->sizes[0] == 4 && scaled({3}) == 2.0f, "scaled");
  // Several results come back as a tuple.
  auto [low, high] = aot_kernels::minmax(b);
  check(low == 10.0f && high == 40.0f, "minmax");
  // [docs:end]

  // The C interface stays available, with descriptors by pointer.
  std::vector<float> y{1, 1, 1, 1};
  Vec da = memjit::runtime::makeView(a), dy = memjit::runtime::makeView(y);
  _mlir_ciface_saxpy(2.0f, &da, &dy);
  check(y == std::vector<float>({3, 5, 7, 9}), "saxpy");

  // 2x3 times 3x2.
  std::vector<float> A{1, 2, 3, 4, 5, 6}, B{7, 8, 9, 10, 11, 12}, C(4, -1.0f);
  Mat dA{A.data(), A.data(), 0, {2, 3}, {3, 1}}, dB{B.data(), B.data(), 0, {3, 2}, {2, 1}},
      dC{C.data(), C.data(), 0, {2, 2}, {2, 1}};
  aot_kernels::matmul(dA, dB, dC);
  check(C == std::vector<float>({58, 64, 139, 154}), "matmul");

  // The object describes itself.
  const auto* info = aot_kernels::findFunction("matmul");
  check(info && std::strcmp(info->type, "(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()") == 0,
        "matmul metadata");
  check(aot_kernels::kFunctionCount == 6, "function count");
  for (std::size_t i = 0; i < aot_kernels::kFunctionCount; ++i)
    std::printf("%s : %s\n", aot_kernels::kFunctions[i].name, aot_kernels::kFunctions[i].type);

  // Nothing of LLVM in this process.
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) check(line.find("libLLVM") == std::string::npos, line.c_str());

  if (failures == 0) std::printf("aot example: all kernels correct, no LLVM loaded\n");
  return failures == 0 ? 0 : 1;
}
