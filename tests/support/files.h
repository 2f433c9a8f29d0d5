// File helpers shared by tests that write and read scratch files.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace memjit::test {

/// The whole content of a file ("" when it cannot be read).
inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// An empty scratch folder `<build>/tests/<relative>`, emptied if it existed.
inline std::filesystem::path freshDir(const std::filesystem::path& relative) {
  auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests" / relative;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The IR a tiered module's first tier left in a JitOptions::dumpDirectory:
/// the `.after.ll` dump whose functions carry the first tier's names (the
/// tier-up leaves one of its own), "" when there is none.
inline std::string firstTierDump(const std::filesystem::path& dumps) {
  for (const auto& entry : std::filesystem::directory_iterator(dumps)) {
    if (!entry.path().string().ends_with(".after.ll")) continue;
    std::string ir = readFile(entry.path());
    if (ir.find(".memjit.tier0(") != std::string::npos) return ir;
  }
  return {};
}

/// e_machine of an ELF object's bytes (62 x86-64, 183 AArch64), -1 when not ELF.
inline int elfMachine(const std::string& object) {
  if (object.size() < 20 || object.substr(0, 4) != "\x7f" "ELF") return -1;
  return static_cast<unsigned char>(object[18]) | (static_cast<unsigned char>(object[19]) << 8);
}

}  // namespace memjit::test
