// Self-describing modules: the metadata globals and the manifest.
#include "memjit/codegen/metadata.h"

#include <gtest/gtest.h>

#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>

#include "memjit/codegen/function_lowering.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"
#include "support/llvm_jit.h"

namespace memjit::codegen {
namespace {

TEST(Metadata, EachDefinedFunctionDescribesItself) {
  Module m("mod");
  auto t = parseFunctionType("(memref<?xf32>, i32) -> f32");
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(defineFunction(m, "add", *t).ok());
  ASSERT_FALSE(emitZeroBody(m, "add"));
  ASSERT_TRUE(declareExternalFunction(m, "ext", *t).ok());
  auto type = readMetadataString(m, "_memjit_type_add");
  ASSERT_TRUE(type.ok());
  EXPECT_EQ(*type, "(memref<?xf32>, i32) -> f32");
  auto sig = signature::describe("add", *t);
  if (sig.ok()) {
    EXPECT_EQ(*readMetadataString(m, "_memjit_f_add"), sig->raw);
    EXPECT_EQ(*readMetadataString(m, "_memjit_abi_add"), sig->reflection);
  }
  EXPECT_FALSE(readMetadataString(m, "_memjit_sip_add").ok());
  EXPECT_FALSE(readMetadataString(m, "_memjit_type_ext").ok());  // external: described where defined
  EXPECT_EQ(*readMetadataString(m, "_memjit_manifest_mod"), R"({"memjit":1,"module":"mod","functions":["add"]})");
  ASSERT_EQ(m.signatures().size(), 1u);
  EXPECT_EQ(m.signatures()[0].name, "add");
  const llvm::GlobalVariable* g = m.llvm().getGlobalVariable("_memjit_type_add");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->isConstant());
  EXPECT_EQ(g->getLinkage(), llvm::GlobalValue::ExternalLinkage);
}

TEST(Metadata, DeclaredStructureAndAllocatorAreEmbeddedAndReadableFromCompiledCode) {
  Module m("my-mod");
  auto t = parseFunctionType("(i32) -> i32");
  FunctionOptions o;
  o.signature = signature::FunctionSignature{"f", *t, "raw", "{}", std::string("sip"), std::string("alloc")};
  ASSERT_TRUE(defineFunction(m, "f", *t, o).ok());
  ASSERT_FALSE(emitZeroBody(m, "f"));
  ASSERT_TRUE(defineFunction(m, "g", *t).ok());
  ASSERT_FALSE(emitZeroBody(m, "g"));
  EXPECT_EQ(manifestSymbol("my-mod"), "_memjit_manifest_my_mod");
  test::TestJit jit;
  ASSERT_FALSE(jit.add(std::move(m)));
  auto str = [&](const char* s) -> std::string {
    auto p = jit.lookup(s);
    return p.ok() ? std::string(static_cast<const char*>(*p)) : "<missing " + std::string(s) + ">";
  };
  EXPECT_EQ(str("_memjit_sip_f"), "sip");
  EXPECT_EQ(str("_memjit_fbr_f"), "alloc");
  EXPECT_EQ(str("_memjit_f_f"), "raw");
  EXPECT_EQ(str("_memjit_type_g"), "(i32) -> i32");
  EXPECT_EQ(str("_memjit_manifest_my_mod"), R"({"memjit":1,"module":"my-mod","functions":["f","g"]})");
}

TEST(Metadata, ManifestJsonEscapes) {
  EXPECT_EQ(manifestJson("a\"b", {}), R"({"memjit":1,"module":"a\"b","functions":[]})");
}

TEST(Metadata, EmitFunctionMetadataDescribesAHandBuiltFunction) {
  // A function built without defineFunction (e.g. straight LLVM IR) gets
  // the same description from emitFunctionMetadata.
  Module m("hand");
  auto type = parseFunctionType("(memref<?xf32>) -> f32");
  ASSERT_TRUE(type.ok());
  auto sig = signature::describe("norm", *type);
  ASSERT_TRUE(sig.ok()) << sig.error().message();
  sig->sip = "I3!_0R1!";
  sig->resultAllocator = "norm_alloc";
  ASSERT_FALSE(emitFunctionMetadata(m, *sig));
  EXPECT_EQ(*readMetadataString(m, "_memjit_type_norm"), "(memref<?xf32>) -> f32");
  EXPECT_EQ(*readMetadataString(m, "_memjit_f_norm"), sig->raw);
  EXPECT_EQ(*readMetadataString(m, "_memjit_abi_norm"), sig->reflection);
  EXPECT_EQ(*readMetadataString(m, "_memjit_sip_norm"), "I3!_0R1!");
  EXPECT_EQ(*readMetadataString(m, "_memjit_fbr_norm"), "norm_alloc");
  ASSERT_EQ(m.signatures().size(), 1u);
  EXPECT_EQ(m.signatures()[0].name, "norm");
  EXPECT_EQ(m.signatures()[0].type, *type);
  EXPECT_EQ(m.signatures()[0].sip, sig->sip);
  EXPECT_EQ(m.signatures()[0].resultAllocator, sig->resultAllocator);

  // A second function is appended to the manifest, in order.
  auto second = signature::describe("after", *parseFunctionType("() -> ()"));
  ASSERT_TRUE(second.ok());
  second->raw.clear();  // an empty form is left out, not written as ""
  ASSERT_FALSE(emitFunctionMetadata(m, *second));
  EXPECT_FALSE(readMetadataString(m, "_memjit_f_after").ok());
  EXPECT_EQ(*readMetadataString(m, "_memjit_manifest_hand"),
            R"({"memjit":1,"module":"hand","functions":["norm","after"]})");

  Error twice = emitFunctionMetadata(m, *sig);
  ASSERT_TRUE(twice);
  EXPECT_EQ(twice.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(twice.message(), "function 'norm' already has metadata in module 'hand'");
  EXPECT_EQ(m.signatures().size(), 2u);
  EXPECT_FALSE(m.verify());
}

}  // namespace
}  // namespace memjit::codegen
