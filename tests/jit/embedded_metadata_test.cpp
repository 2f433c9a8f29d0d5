// The signature metadata a module embeds (embedded_metadata.h): written
// into an LLVM module and read back, built from its strings (deriving the
// forms a module left out), and what is wrong with a bad one named.
#include "memjit/jit/embedded_metadata.h"

#include <gtest/gtest.h>

#include <string>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/metadata_symbols.h"
#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"
#include "memjit/type_syntax.h"

using namespace memjit;
using namespace memjit::jit;

namespace {

std::unique_ptr<llvm::Module> emptyModule(llvm::LLVMContext& context) {
  return std::make_unique<llvm::Module>("meta", context);
}

}  // namespace

TEST(EmbeddedMetadata, RoundTripsThroughAnLlvmModule) {
  llvm::LLVMContext context;
  auto module = emptyModule(context);
  auto type = parseFunctionType("(memref<?xf32>) -> f32");
  auto sig = signature::describe("f", *type);
  ASSERT_TRUE(sig.ok());
  sig->sip = "S1!";
  sig->resultAllocator = "alloc";
  ASSERT_FALSE(embedSignature(*module, *sig));
  auto read = readEmbeddedSignatures(*module);
  ASSERT_TRUE(read.ok()) << read.error().str();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ((*read)[0].type, sig->type);
  EXPECT_EQ((*read)[0].raw, sig->raw);
  EXPECT_EQ((*read)[0].reflection, sig->reflection);
  EXPECT_EQ((*read)[0].sip, sig->sip);
  EXPECT_EQ((*read)[0].resultAllocator, sig->resultAllocator);
  // Embedding twice is refused.
  EXPECT_EQ(embedSignature(*module, *sig).code(), ErrorCode::InvalidArgument);
}

TEST(EmbeddedMetadata, SignatureFromTheTypeAloneDerivesTheOtherForms) {
  MetadataStrings strings;
  strings.type = "(memref<?x4xf32>, index) -> ui8";
  auto sig = signatureFromMetadata("k", strings);
  ASSERT_TRUE(sig.ok()) << sig.error().str();
  auto type = parseFunctionType(strings.type);
  ASSERT_TRUE(type.ok());
  auto described = signature::describe("k", *type);
  ASSERT_TRUE(described.ok());
  EXPECT_EQ(sig->name, "k");
  EXPECT_EQ(sig->type, *type);
  EXPECT_EQ(sig->raw, described->raw);
  EXPECT_EQ(sig->reflection, described->reflection);
  EXPECT_FALSE(sig->sip);
  EXPECT_FALSE(sig->resultAllocator);
}

TEST(EmbeddedMetadata, SignatureKeepsTheFormsTheModuleCarries) {
  // What a module says is kept as it is, even where describe() would say
  // otherwise (a producer's reflection may name arguments, for instance).
  MetadataStrings strings;
  strings.type = "(f32) -> f32";
  strings.raw = "I5!S3!t2R5!S3!t2";
  strings.reflection = R"({"a":[["named","x","f32"]],"r":["f32"],"v":1})";
  strings.sip = "I3!_0R1!";
  strings.resultAllocator = "k_alloc";
  auto sig = signatureFromMetadata("k", strings);
  ASSERT_TRUE(sig.ok()) << sig.error().str();
  EXPECT_EQ(sig->raw, *strings.raw);
  EXPECT_EQ(sig->reflection, *strings.reflection);
  EXPECT_EQ(sig->sip, strings.sip);
  EXPECT_EQ(sig->resultAllocator, strings.resultAllocator);
}

TEST(EmbeddedMetadata, SignatureNamesTheFunctionWhenItsTypeIsBad) {
  for (const char* bad : {"", "(f32) ->", "(memref<?xq>) -> ()", "f32"}) {
    MetadataStrings strings;
    strings.type = bad;
    auto sig = signatureFromMetadata("broken", strings);
    ASSERT_FALSE(sig.ok()) << bad;
    EXPECT_EQ(sig.error().code(), ErrorCode::ParseError) << bad;
    EXPECT_TRUE(sig.error().offset().has_value()) << bad;
    EXPECT_NE(sig.error().message().find("function 'broken': _memjit_type_broken"), std::string::npos)
        << sig.error().str();
  }
}

TEST(EmbeddedMetadata, ReadingRefusesAGlobalThatIsNoString) {
  llvm::LLVMContext context;
  auto module = emptyModule(context);
  new llvm::GlobalVariable(*module, llvm::Type::getInt64Ty(context), true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(llvm::Type::getInt64Ty(context), 7),
                           metadata::symbolName(metadata::kTypePrefix, "f"));
  auto read = readEmbeddedSignatures(*module);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code(), ErrorCode::ParseError);
  EXPECT_NE(read.error().message().find("metadata global '_memjit_type_f' in module 'meta'"), std::string::npos)
      << read.error().str();
}

TEST(EmbeddedMetadata, ReadsEveryFunctionInNameOrder) {
  llvm::LLVMContext context;
  auto module = emptyModule(context);
  for (const char* name : {"zeta", "alpha", "mid"}) {
    auto sig = signature::describe(name, *parseFunctionType("(i32) -> i32"));
    ASSERT_TRUE(sig.ok());
    ASSERT_FALSE(embedSignature(*module, *sig)) << name;
  }
  auto read = readEmbeddedSignatures(*module);
  ASSERT_TRUE(read.ok()) << read.error().str();
  ASSERT_EQ(read->size(), 3u);
  EXPECT_EQ((*read)[0].name, "alpha");
  EXPECT_EQ((*read)[1].name, "mid");
  EXPECT_EQ((*read)[2].name, "zeta");
  EXPECT_TRUE(readEmbeddedSignatures(*emptyModule(context))->empty());
}
