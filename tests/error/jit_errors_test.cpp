// One case per diagnostic of memjit::jit: each failure is an Error carrying
// LLVM's message (never an abort), with the kind a caller can switch on.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "memjit/jit/embedded_metadata.h"
#include "memjit/type_syntax.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/aot_command.h"
#include "memjit/jit/jit.h"
#include "memjit/jit/object_cache.h"

#include "memjit/codegen/builder.h"
#include "memjit/codegen/function_lowering.h"
#include "support/expect_error.h"
#include "support/ir_snippets.h"
#include "support/jit.h"
#include "support/leaks.h"

using namespace memjit;
using namespace memjit::jit;
using memjit::test::acceptingLeaks;
using memjit::test::expectError;
using memjit::test::makeJit;

namespace {
bool contains(const Error& e, std::string_view text) {
  return e.message().find(text) != std::string::npos;
}
}  // namespace

TEST(JitErrors, MissingExternalSymbol) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::callerIR("caller", "no_such_callback_xyz"), "m");
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::NotFound,
              {"cannot link module 'm': undefined symbol 'no_such_callback_xyz'"});
  // Nothing of the failed module stays behind.
  EXPECT_FALSE(jit.lookupSymbol("caller").ok());
  EXPECT_EQ(jit.moduleCount(), 0u);
}

TEST(JitErrors, MissingCInterfaceNamesTheFunction) {
  Jit jit = makeJit();
  codegen::Module m("user");
  auto type = parseFunctionType("(f32) -> f32");
  ASSERT_TRUE(codegen::declareExternalFunction(m, "elsewhere", *type).ok());
  {
    codegen::FunctionBuilder b(m, "caller", *type);
    b.ret(b.call("elsewhere", {b.arg(0)}));
    ASSERT_FALSE(b.finish());
  }
  auto mod = jit.add(std::move(m));
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::NotFound,
              {"cannot link module 'user': undefined symbol '_mlir_ciface_elsewhere' "
               "(the C interface of function 'elsewhere')"});
}

TEST(JitErrors, MissingSymbolDefinedByAModuleNotLinkedAgainst) {
  Jit jit = makeJit();
  ASSERT_TRUE(jit.addIR(test::constantIR("seven", 7), "a").ok());
  ASSERT_TRUE(jit.addIR(test::constantIR("seven", 8), "b").ok());
  auto mod = jit.addIR("declare i64 @seven()\ndefine i64 @f() {\n  %s = call i64 @seven()\n  ret i64 %s\n}\n",
                       "user");
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::NotFound,
              {"cannot link module 'user': undefined symbol 'seven' (defined by loaded modules 'a', 'b', which "
               "this module does not link against: list them in AddOptions::linkAgainst)"});
}

TEST(JitErrors, AmbiguousLookup) {
  Jit jit = makeJit();
  ASSERT_TRUE(jit.addIR(test::constantIR("k", 1), "first").ok());
  ASSERT_TRUE(jit.addIR(test::constantIR("k", 2), "second").ok());
  expectError(jit.lookup("k").error(), ErrorCode::InvalidArgument,
              {"'k' is defined by modules 'first', 'second': use LoadedModule::function"});
}

TEST(JitErrors, AmbiguousLookupSymbol) {
  Jit jit = makeJit();
  ASSERT_TRUE(jit.addIR(test::constantIR("k", 1), "first").ok());
  ASSERT_TRUE(jit.addIR(test::constantIR("k", 2), "second").ok());
  expectError(jit.lookupSymbol("_memjit_type_k").error(), ErrorCode::InvalidArgument,
              {"symbol '_memjit_type_k' is defined by modules 'first', 'second': use LoadedModule::symbol"});
}

TEST(JitErrors, LinkAgainstAModuleNotLoaded) {
  Jit jit = makeJit();
  auto a = jit.addIR(test::constantIR("k", 1), "a");
  ASSERT_TRUE(a.ok());
  LoadedModule removed = *a;
  ASSERT_FALSE(jit.remove(*a));
  auto mod = jit.addIR(test::constantIR("j", 1), "user", {.linkAgainst = {removed}});
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::InvalidArgument,
              {"module 'user' cannot link against module 'a': it is not loaded in this JIT"});

  Jit other = makeJit();
  auto foreign = other.addIR(test::constantIR("k", 1), "foreign");
  ASSERT_TRUE(foreign.ok());
  mod = jit.addIR(test::constantIR("j", 1), "user", {.linkAgainst = {*foreign}});
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::InvalidArgument,
              {"module 'user' cannot link against module 'foreign': it is not loaded in this JIT"});
}

TEST(JitErrors, LinkAgainstAnEmptyHandle) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::constantIR("j", 1), "user", {.linkAgainst = {LoadedModule()}});
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::InvalidArgument,
              {"module 'user': AddOptions::linkAgainst holds an empty module handle"});
}

TEST(JitErrors, InvalidModuleIsReportedByTheVerifier) {
  Jit jit = makeJit();
  // Built in memory, so no parser sees it: `ret i64` in a function returning
  // i32 reaches the verifier, which names the module and the mismatch.
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("mistyped", *context);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt32Ty(*context), false);
  auto* f = llvm::Function::Create(type, llvm::Function::ExternalLinkage, "f", *module);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(*context, "entry", f));
  b.CreateRet(b.getInt64(0));
  auto mod = jit.add(std::move(context), std::move(module));
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::CompileError, {"invalid module 'mistyped'", "return"});
}

TEST(JitErrors, MistypedReturnInTextIsAParseError) {
  Jit jit = makeJit();
  // The same mistake in text is caught by the IR parser, with its position.
  auto mod = jit.addIR("define i32 @f() {\n  ret i64 0\n}\n", "bad");
  ASSERT_FALSE(mod.ok());
  expectError(mod.error(), ErrorCode::ParseError, {"invalid LLVM IR in 'bad'", "bad:2:"});
}

TEST(JitErrors, VerifierFailureNamesTheModule) {
  Jit jit = makeJit();
  // Well-formed syntax, but a use that does not dominate its definition.
  auto mod = jit.addIR(
      "define i32 @f() {\nentry:\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n", "cyclic");
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.error().code(), ErrorCode::CompileError) << mod.error().str();
  EXPECT_TRUE(contains(mod.error(), "invalid module 'cyclic'")) << mod.error().str();
  EXPECT_TRUE(contains(mod.error(), "dominate")) << mod.error().str();
}

TEST(JitErrors, UnparsableIR) {
  Jit jit = makeJit();
  auto mod = jit.addIR("define nonsense", "garbage");
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.error().code(), ErrorCode::ParseError);
  EXPECT_TRUE(contains(mod.error(), "garbage")) << mod.error().str();
}

TEST(JitErrors, CodeGenerationFailure) {
  Jit jit = makeJit();
  auto mod = jit.addIR(
      "define void @f() {\n  call void asm sideeffect \"not_an_instruction %eax\", \"\"()\n"
      "  ret void\n}\n",
      "asm");
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.error().code(), ErrorCode::CompileError) << mod.error().str();
  EXPECT_TRUE(contains(mod.error(), "code generation for module 'asm' failed")) << mod.error().str();
  EXPECT_TRUE(contains(mod.error(), "not_an_instruction")) << mod.error().str();
}

TEST(JitErrors, DuplicateRegistration) {
  Jit jit = makeJit();
  static int dummy;
  ASSERT_FALSE(jit.registerSymbol("cb", &dummy));
  expectError(jit.registerSymbol("cb", &dummy), ErrorCode::InvalidArgument,
              {"cannot register symbol 'cb': duplicate definition of symbol 'cb'"});
}

TEST(JitErrors, NullRegistration) {
  Jit jit = makeJit();
  EXPECT_EQ(jit.registerSymbol("cb", nullptr).code(), ErrorCode::InvalidArgument);
  static int dummy;
  EXPECT_EQ(jit.registerSymbol("", &dummy).code(), ErrorCode::InvalidArgument);
}

TEST(JitErrors, UnknownFunction) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(mod.ok());
  auto f = mod->function("nope");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::NotFound);
  EXPECT_TRUE(contains(f.error(), "defines no function 'nope'")) << f.error().str();
  expectError(jit.lookup("nope").error(), ErrorCode::NotFound, {"no loaded module defines function 'nope'"});
  expectError(jit.lookupSymbol("nope").error(), ErrorCode::NotFound, {"symbol 'nope': undefined symbol 'nope'"});
  EXPECT_EQ(mod->symbol("nope").error().code(), ErrorCode::NotFound);
}

TEST(JitErrors, FunctionWithoutMetadata) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::addKernelIR("add", /*withMetadata=*/false), "m");
  ASSERT_TRUE(mod.ok());
  auto f = mod->function("add");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::NotFound);
  EXPECT_TRUE(contains(f.error(), "_memjit_type_add")) << f.error().str();
  // The raw symbol is still there.
  EXPECT_TRUE(mod->symbol("_mlir_ciface_add").ok());
}

TEST(JitErrors, MalformedTypeMetadata) {
  Jit jit = makeJit();
  std::string ir = "define void @f() {\n  ret void\n}\n" +
                   test::constantString("_memjit_type_f", "(memref<?xq32>) -> ()");
  auto mod = jit.addIR(ir, "m");
  ASSERT_TRUE(mod.ok());
  auto f = mod->function("f");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().code(), ErrorCode::ParseError);
  EXPECT_TRUE(contains(f.error(), "function 'f'")) << f.error().str();
}

TEST(JitErrors, RemoveTwice) {
  Jit jit = makeJit();
  auto mod = jit.addIR(test::constantIR("k", 1), "m");
  ASSERT_TRUE(mod.ok());
  LoadedModule copy = *mod;
  ASSERT_FALSE(jit.remove(*mod));
  Error e = jit.remove(copy);
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  EXPECT_TRUE(contains(e, "module 'm' is not loaded")) << e.str();
  LoadedModule empty;
  EXPECT_EQ(jit.remove(empty).code(), ErrorCode::InvalidArgument);
}

TEST(JitErrors, CacheDirectoryCannotBeCreated) {
  auto cache = ObjectCache::onDisk("/proc/memjit-cannot-create/cache");
  ASSERT_FALSE(cache.ok());
  EXPECT_EQ(cache.error().code(), ErrorCode::IoError);
  EXPECT_TRUE(contains(cache.error(), "/proc/memjit-cannot-create/cache")) << cache.error().str();
}

TEST(JitErrors, CacheDirectoryIsEmpty) {
  auto cache = ObjectCache::onDisk("");
  ASSERT_FALSE(cache.ok());
  expectError(cache.error(), ErrorCode::InvalidArgument, {"object cache directory is empty"});
}

TEST(JitErrors, AotOptionWithoutItsValue) {
  for (const char* option : {"-o", "--header", "--emit-asm", "--emit-ll", "--emit-bc", "--namespace", "--target",
                             "--cpu", "--features"}) {
    auto command = parseAotCommand({"in.ll", option});
    ASSERT_FALSE(command.ok()) << option;
    expectError(command.error(), ErrorCode::InvalidArgument,
                {(std::string("option '") + option + "' needs a value").c_str()});
  }
}

// Every Jit method on a moved-from Jit: an InvalidArgument naming the method
// (never a null dereference), or for the accessors the empty answer.
class MovedFromJit : public ::testing::Test {
 protected:
  void expectMovedFrom(const Error& e, const char* method) {
    expectError(e, ErrorCode::InvalidArgument, {method, "called on a moved-from Jit"});
  }
  static JitOptions atO3() {
    JitOptions options;
    options.optLevel = OptLevel::O3;
    return options;
  }
  Jit jit = makeJit(atO3());
  Jit other = std::move(jit);  // NOLINT: `jit` is the moved-from one under test
};

TEST_F(MovedFromJit, AddCodegenModule) {
  auto mod = jit.add(codegen::Module("after_move"));
  ASSERT_FALSE(mod.ok());
  expectMovedFrom(mod.error(), "Jit::add");
  EXPECT_EQ(other.moduleCount(), 0u);
}

TEST_F(MovedFromJit, AddLlvmModule) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("after_move", *context);
  auto mod = jit.add(std::move(context), std::move(module));
  ASSERT_FALSE(mod.ok());
  expectMovedFrom(mod.error(), "Jit::add");
}

TEST_F(MovedFromJit, AddIR) {
  // Refused before the text is parsed: the error is about the Jit, not the IR.
  auto mod = jit.addIR("not IR at all", "after_move");
  ASSERT_FALSE(mod.ok());
  expectMovedFrom(mod.error(), "Jit::addIR");
}

TEST_F(MovedFromJit, AddObject) {
  auto mod = jit.addObject("not an object", "after_move");
  ASSERT_FALSE(mod.ok());
  expectMovedFrom(mod.error(), "Jit::addObject");
}

TEST_F(MovedFromJit, RemoveLeavesTheModuleLoadedWhereItIs) {
  auto mod = other.addIR(test::constantIR("k", 7), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  LoadedModule handle = *mod;
  expectMovedFrom(jit.remove(handle), "Jit::remove");
  EXPECT_TRUE(handle.valid());
  EXPECT_EQ(other.moduleCount(), 1u);
  EXPECT_TRUE(other.lookupSymbol("k").ok());
}

TEST_F(MovedFromJit, Lookup) {
  auto f = jit.lookup("anything");
  ASSERT_FALSE(f.ok());
  expectMovedFrom(f.error(), "Jit::lookup");
}

TEST_F(MovedFromJit, LookupSymbol) {
  auto address = jit.lookupSymbol("malloc");
  ASSERT_FALSE(address.ok());
  expectMovedFrom(address.error(), "Jit::lookupSymbol");
}

TEST_F(MovedFromJit, RegisterSymbol) {
  static int target = 0;
  expectMovedFrom(jit.registerSymbol("cb", &target), "Jit::registerSymbol");
  EXPECT_TRUE(other.registeredSymbols().empty());
}

TEST_F(MovedFromJit, AccessorsAnswerEmpty) {
  ASSERT_FALSE(other.registerSymbol("cb", this));
  EXPECT_TRUE(jit.registeredSymbols().empty());
  EXPECT_EQ(other.registeredSymbols().size(), 1u);
  EXPECT_EQ(jit.moduleCount(), 0u);
  EXPECT_EQ(other.options().optLevel, OptLevel::O3);
  EXPECT_EQ(jit.options().optLevel, JitOptions{}.optLevel);  // the defaults, not the moved options
  EXPECT_EQ(&jit.target(), &TargetSpec::host());
}

TEST_F(MovedFromJit, AssigningMakesItUsableAgain) {
  jit = std::move(other);
  auto mod = jit.addIR(test::constantIR("k", 7), "m");
  ASSERT_TRUE(mod.ok()) << mod.error().message();
  EXPECT_EQ(jit.moduleCount(), 1u);
  auto refused = other.lookup("k");  // NOLINT(bugprone-use-after-move): now `other` is moved from
  ASSERT_FALSE(refused.ok());
  expectMovedFrom(refused.error(), "Jit::lookup");
}

TEST(JitErrors, DumpDirectoryCannotBeCreated) {
  JitOptions options;
  options.dumpDirectory = "/proc/memjit-no-dumps";
  auto jit = Jit::create(options);
  ASSERT_FALSE(jit.ok());
  EXPECT_EQ(jit.error().code(), ErrorCode::IoError);
}

TEST(JitErrors, LlvmFatalErrorInCodeGenerationWithRecovery) {
  // An AVX-512 intrinsic in a function whose "target-features" turn AVX-512
  // off: x86's type legaliser calls report_fatal_error, which without
  // recoverFromLlvmCrashes ends the process.
  JitOptions options;
  options.recoverFromLlvmCrashes = true;
  auto jit = Jit::create(options);
  ASSERT_TRUE(jit.ok());
  const std::string ir =
      "declare <16 x float> @llvm.x86.avx512.mask.rndscale.ps.512(<16 x float>, i32, <16 x float>, i16, i32)\n"
      "define <16 x float> @round(<16 x float> %x) #0 {\n"
      "  %v = call <16 x float> @llvm.x86.avx512.mask.rndscale.ps.512(<16 x float> %x, i32 1, "
      "<16 x float> %x, i16 -1, i32 4)\n"
      "  ret <16 x float> %v\n}\n"
      "attributes #0 = { \"target-cpu\"=\"x86-64\" \"target-features\"=\"-avx512f\" }\n";
  auto mod = acceptingLeaks([&] { return jit->addIR(ir, "no_avx512"); });
  ASSERT_FALSE(mod.ok());
  EXPECT_EQ(mod.error().code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(mod.error(), "LLVM ERROR: ")) << mod.error().str();
  EXPECT_TRUE(contains(mod.error(), "module 'no_avx512'")) << mod.error().str();
  EXPECT_EQ(jit->moduleCount(), 0u);
}

TEST(AotErrors, LlvmFatalErrorInCodeGenerationWithRecovery) {
  // x86-64 cannot select another target's intrinsic: report_fatal_error.
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("unselectable", context);
  auto* type = llvm::FunctionType::get(llvm::Type::getInt64Ty(context), false);
  auto* intrinsic = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                           "llvm.aarch64.get.fpcr", *module);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "fpcr", *module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", f));
  builder.CreateRet(builder.CreateCall(intrinsic));
  AotOptions options;
  options.recoverFromLlvmCrashes = true;
  AotOutputs outputs;
  outputs.object = "/tmp/memjit-unselectable-never-written.o";
  std::remove(outputs.object.c_str());
  Error e = acceptingLeaks([&] { return compileAhead(*module, outputs, options); });
  EXPECT_EQ(e.code(), ErrorCode::CompileError);
  EXPECT_TRUE(contains(e, "LLVM ERROR: Cannot select: intrinsic %llvm.aarch64.get.fpcr")) << e.str();
  EXPECT_TRUE(contains(e, "module 'unselectable'")) << e.str();
  EXPECT_FALSE(std::filesystem::exists(outputs.object));
}

TEST(AotErrors, UnknownTargetTriple) {
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("m", context);
  AotOptions options;
  options.target = {"nosuch-arch-none", "", ""};
  AotOutputs outputs;
  outputs.object = "/tmp/unused.o";
  Error e = compileAhead(*module, outputs, options);
  EXPECT_EQ(e.code(), ErrorCode::Unsupported);
  EXPECT_TRUE(contains(e, "nosuch-arch-none")) << e.str();
  EXPECT_EQ(checkTarget(options.target).code(), ErrorCode::Unsupported);
}

TEST(AotErrors, ScalarWithoutACSpellingInHeader) {
  auto type = parseFunctionType("(complex<f32>) -> ()");
  ASSERT_TRUE(type.ok());
  auto sig = signature::describe("h", *type);
  ASSERT_TRUE(sig.ok());
  auto header = generateHeader({*sig}, {.cppNamespace = "ns", .moduleName = "m"});
  ASSERT_FALSE(header.ok());
  EXPECT_EQ(header.error().code(), ErrorCode::Unsupported);
  EXPECT_TRUE(contains(header.error(), "function 'h'")) << header.error().str();
  EXPECT_TRUE(contains(header.error(), "complex<f32> scalar")) << header.error().str();
}

TEST(AotErrors, UnwritableOutput) {
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("m", context);
  AotOutputs outputs;
  outputs.ir = "/proc/no/such/dir/m.ll";
  Error e = compileAhead(*module, outputs);
  EXPECT_EQ(e.code(), ErrorCode::IoError);
  EXPECT_TRUE(contains(e, "/proc/no/such/dir/m.ll")) << e.str();
}

TEST(AotErrors, MetadataGlobalThatIsNotAString) {
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("m", context);
  new llvm::GlobalVariable(*module, llvm::Type::getInt32Ty(context), true,
                           llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), 7), "_memjit_type_f");
  auto read = readEmbeddedSignatures(*module);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code(), ErrorCode::ParseError);
  EXPECT_TRUE(contains(read.error(), "_memjit_type_f")) << read.error().str();
}
