// Test helpers for .npy files: one assembled byte by byte, and scratch
// files in the current test's own folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace memjit::test {

using Bytes = std::vector<unsigned char>;

// An npy file by hand: magic, version, header length (2 bytes for 1.0, 4 for
// 2.0 and 3.0, little-endian), the header text as given, then the data.
inline Bytes npyFile(unsigned major, const std::string& header, const Bytes& data = {}) {
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
  const std::size_t n = header.size();
  b.push_back(static_cast<unsigned char>(n & 0xff));
  b.push_back(static_cast<unsigned char>((n >> 8) & 0xff));
  if (major != 1) {
    b.push_back(static_cast<unsigned char>((n >> 16) & 0xff));
    b.push_back(static_cast<unsigned char>((n >> 24) & 0xff));
  }
  b.insert(b.end(), header.begin(), header.end());
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// A file in the current test's own folder (ctest runs tests in parallel processes).
inline std::filesystem::path scratch(const std::string& name) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = std::string(info->test_suite_name()) + "." + info->name();
  const auto dir = std::filesystem::path(MEMJIT_BINARY_DIR) / "tests/npy" / test;
  static std::string cleaned;  // the test whose folder was emptied (inline: one per binary)
  if (cleaned != test) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    cleaned = test;
  }
  return dir / name;
}

inline void writeBytes(const std::filesystem::path& p, const Bytes& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace memjit::test
