// Declarations of every twin in its three builds (g++, clang, g++ with OpenMP); see twin.h.
#pragma once

#include <cstdint>

#define POLYBENCH_DECLARE_TWIN(name)                                                                           \
  extern "C" void polybench_##name##_gcc(const std::int64_t* n, const double* s, void* const* a);   \
  extern "C" void polybench_##name##_clang(const std::int64_t* n, const double* s, void* const* a); \
  extern "C" void polybench_##name##_omp(const std::int64_t* n, const double* s, void* const* a);

POLYBENCH_DECLARE_TWIN(correlation)
POLYBENCH_DECLARE_TWIN(covariance)
POLYBENCH_DECLARE_TWIN(gemm)
POLYBENCH_DECLARE_TWIN(gemver)
POLYBENCH_DECLARE_TWIN(gesummv)
POLYBENCH_DECLARE_TWIN(symm)
POLYBENCH_DECLARE_TWIN(syr2k)
POLYBENCH_DECLARE_TWIN(syrk)
POLYBENCH_DECLARE_TWIN(trmm)
POLYBENCH_DECLARE_TWIN(2mm)
POLYBENCH_DECLARE_TWIN(3mm)
POLYBENCH_DECLARE_TWIN(atax)
POLYBENCH_DECLARE_TWIN(bicg)
POLYBENCH_DECLARE_TWIN(doitgen)
POLYBENCH_DECLARE_TWIN(mvt)
POLYBENCH_DECLARE_TWIN(cholesky)
POLYBENCH_DECLARE_TWIN(durbin)
POLYBENCH_DECLARE_TWIN(gramschmidt)
POLYBENCH_DECLARE_TWIN(lu)
POLYBENCH_DECLARE_TWIN(ludcmp)
POLYBENCH_DECLARE_TWIN(trisolv)
POLYBENCH_DECLARE_TWIN(deriche)
POLYBENCH_DECLARE_TWIN(floyd_warshall)
POLYBENCH_DECLARE_TWIN(nussinov)
POLYBENCH_DECLARE_TWIN(adi)
POLYBENCH_DECLARE_TWIN(fdtd_2d)
POLYBENCH_DECLARE_TWIN(heat_3d)
POLYBENCH_DECLARE_TWIN(jacobi_1d)
POLYBENCH_DECLARE_TWIN(jacobi_2d)
POLYBENCH_DECLARE_TWIN(seidel_2d)

#undef POLYBENCH_DECLARE_TWIN

/// The g++ and clang twins of `name`, for a Kernel's `gcc` and `clang` fields.
#define POLYBENCH_TWINS(name) polybench_##name##_gcc, polybench_##name##_clang
