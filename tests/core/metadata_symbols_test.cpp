// The names of the globals through which a compiled module describes
// itself: readers find a function's metadata by prefix, so no prefix may
// be the start of another (or `_memjit_f_g` could be read as a `_memjit_fbr_`
// symbol of some function).
#include "memjit/metadata_symbols.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace memjit::metadata {
namespace {

const std::vector<std::string_view> kPrefixes = {kTypePrefix,       kRawPrefix,       kReflectionPrefix, kSipPrefix,
                                                 kAllocatorPrefix,  kManifestPrefix,  kCInterfacePrefix};

TEST(MetadataSymbols, SymbolNameIsPrefixThenName) {
  EXPECT_EQ(symbolName(kTypePrefix, "saxpy"), "_memjit_type_saxpy");
  EXPECT_EQ(symbolName(kRawPrefix, "f"), "_memjit_f_f");
  EXPECT_EQ(symbolName(kAllocatorPrefix, "f"), "_memjit_fbr_f");
  EXPECT_EQ(symbolName(kCInterfacePrefix, "a.b$c"), "_mlir_ciface_a.b$c");
  EXPECT_EQ(symbolName(kManifestPrefix, ""), "_memjit_manifest_");
  EXPECT_EQ(symbolName("", "plain"), "plain");
  // Not NUL-terminated input: only the view's characters are taken.
  std::string_view longer = "kernel_and_more";
  EXPECT_EQ(symbolName(kSipPrefix, longer.substr(0, 6)), "_memjit_sip_kernel");
}

TEST(MetadataSymbols, NoPrefixStartsAnother) {
  for (std::string_view a : kPrefixes)
    for (std::string_view b : kPrefixes)
      if (a != b) {
        EXPECT_FALSE(b.starts_with(a)) << a << " starts " << b;
      }
}

TEST(MetadataSymbols, PrefixesAreCIdentifiersEndingInAnUnderscore) {
  for (std::string_view p : kPrefixes) {
    ASSERT_FALSE(p.empty());
    EXPECT_EQ(p.front(), '_') << p;
    EXPECT_EQ(p.back(), '_') << p;
    for (char c : p) EXPECT_TRUE(c == '_' || (c >= 'a' && c <= 'z')) << p;
  }
}

}  // namespace
}  // namespace memjit::metadata
