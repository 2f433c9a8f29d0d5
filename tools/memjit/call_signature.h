// `memjit call --signature NAME='<type>'` checked against what the program
// file knows of NAME. A wrong type would call the kernel with the wrong
// registers and descriptors: a crash at best, wrong results at worst.
#pragma once

#include <string>

#include "memjit/error.h"
#include "memjit/jit/program.h"
#include "memjit/types.h"

namespace memjit::cli {

/// TypeMismatch unless `_mlir_ciface_<name>` in `program`'s IR has the LLVM
/// type that MLIR's C interface of `type` (given as `text`) has. Pointers are
/// opaque, so a memref's rank and element type cannot be checked this way;
/// objects carry no IR types, so nothing is checked for them.
Error checkAgainstIR(const jit::Program& program, const std::string& name, const FunctionType& type,
                     const std::string& text);

/// TypeMismatch unless `type` (given as `text`) is `metadataType`, the type
/// memjit's signature metadata in the file gives `name`.
Error checkAgainstMetadata(const std::string& file, const std::string& name, const FunctionType& type,
                           const std::string& text, const FunctionType& metadataType);

}  // namespace memjit::cli
