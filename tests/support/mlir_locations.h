// Test helper for debug info that memjit did not build: a small MLIR kernel
// lowered by MLIR's tools with its locations kept, so the LLVM IR carries a
// compile unit named after the `.mlir` file and each instruction that file's
// line; and a reader of an object's DWARF line table. Used by the tests of
// `memjit compile` and Jit::addIR with such IR. Call lowerWithLocations only
// when support/mlir.h's missingMlirTools() is empty.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace memjit::test {

/// scale(x, a): x[i] *= a; its arith.mulf is on line kLocatedMulfLine.
inline constexpr const char* kLocatedMlir = R"(func.func @scale(%x: memref<?xf32>, %a: f32) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %r = arith.mulf %v, %a : f32
    memref.store %r, %x[%i] : memref<?xf32>
  }
  return
}
)";
inline constexpr unsigned kLocatedMulfLine = 7;

/// Writes kLocatedMlir to dir/located.mlir and lowers it to dir/located.ll:
/// the parser gives each operation its file:line:column, the lowering keeps
/// them (--mlir-print-debuginfo between the tools), and
/// --ensure-debug-info-scope-on-llvm-func gives the functions the
/// subprograms mlir-translate turns locations into DWARF with. On failure an
/// empty path and a test failure.
inline std::filesystem::path lowerWithLocations(const std::filesystem::path& dir) {
  std::ofstream(dir / "located.mlir") << kLocatedMlir;
  const std::string command =
      std::string(MEMJIT_MLIR_OPT) +
      " --mlir-print-debuginfo --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm"
      " --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts"
      " --ensure-debug-info-scope-on-llvm-func " +
      (dir / "located.mlir").string() + " | " + MEMJIT_MLIR_TRANSLATE + " --mlir-to-llvmir -o " +
      (dir / "located.ll").string();
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << "`" << command << "` failed";
    return {};
  }
  return dir / "located.ll";
}

/// What `dwarfdump --debug-line object` printed ("" and a test failure when it failed).
inline std::string debugLine(const std::string& dwarfdump, const std::filesystem::path& object) {
  std::string out;
  FILE* pipe = ::popen((dwarfdump + " --debug-line " + object.string() + " 2>&1").c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << dwarfdump;
    return "";
  }
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  if (::pclose(pipe) != 0) {
    ADD_FAILURE() << dwarfdump << " --debug-line " << object << " failed:\n" << out;
    return "";
  }
  return out;
}

/// The line numbers of the rows of a `--debug-line` dump
/// ("0x0000000000000010      7     10      1   0   0   0  is_stmt").
inline std::set<unsigned> lineTableLines(const std::string& dump) {
  std::set<unsigned> lines;
  std::istringstream in(dump);
  std::string row;
  while (std::getline(in, row)) {
    std::istringstream fields(row);
    std::string address;
    unsigned line = 0;
    if (fields >> address && address.rfind("0x", 0) == 0 && fields >> line) lines.insert(line);
  }
  return lines;
}

}  // namespace memjit::test
