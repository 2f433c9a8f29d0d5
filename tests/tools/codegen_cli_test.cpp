#include <gtest/gtest.h>

#include "support/cli_runner.h"

namespace memjit::test {
namespace {

TEST(LowerCli, PrintsFunctionAndCInterface) {
  auto r = runCli({"lower", "(memref<?xf32>, memref<4x?xf32>, index) -> f32", "--name", "add"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("; ModuleID = 'LLVMDialectModule'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("define float @add(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, ptr %5, ptr %6, i64 %7, i64 %8, "
                       "i64 %9, i64 %10, i64 %11, i64 %12)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("define float @_mlir_ciface_add(ptr %0, ptr %1, i64 %2)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("_memjit_"), std::string::npos) << r.out;
}

TEST(LowerCli, ExternalIndexBitwidthAndMetadata) {
  auto r = runCli({"lower", "(memref<*xf32>) -> memref<?xf32>", "--name", "ext", "--external", "--index-bitwidth",
                   "32", "--metadata"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("define private { ptr, ptr, i32, [1 x i32], [1 x i32] } @ext(i32 %0, ptr %1)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("declare void @_mlir_ciface_ext(ptr, ptr)"), std::string::npos) << r.out;
  r = runCli({"lower", "(i32) -> i32", "--name", "f", "--metadata"});
  EXPECT_NE(r.out.find("@_memjit_type_f = constant [13 x i8] c\"(i32) -> i32\\00\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("@_memjit_manifest_LLVMDialectModule"), std::string::npos) << r.out;
}

TEST(LowerCli, BarePointerNeedsStaticShapes) {
  auto r = runCli({"lower", "(memref<4xf32>) -> ()", "--name", "b", "--bare-ptr"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("define void @b(ptr %0)"), std::string::npos) << r.out;
  r = runCli({"lower", "(memref<?xf32>) -> ()", "--name", "b", "--bare-ptr"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("memjit lower: "), std::string::npos);
  EXPECT_NE(r.err.find("memref<?xf32>"), std::string::npos) << r.err;
}

TEST(LowerCli, UsageErrors) {
  auto r = runCli({"lower", "(i32) -> i32"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--name"), std::string::npos);
  r = runCli({"lower", "(i32) -> i32", "--name", "f", "--index-bitwidth", "16"});
  EXPECT_EQ(r.status, 2);
  r = runCli({"lower", "(i32 -> i32", "--name", "f"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("parse error"), std::string::npos) << r.err;
  r = runCli({"lower", "(i32) -> i32", "--name", "f", "--frobnicate"});
  EXPECT_EQ(r.status, 2);
}

}  // namespace
}  // namespace memjit::test
