// memjit lower '<function type>' --name NAME [--external] [--index-bitwidth 32]
//                                [--bare-ptr] [--metadata]
// Prints the LLVM IR module holding the lowered function and its
// `_mlir_ciface_` interface, laid out as mlir-translate-19 prints it.
#include <iostream>

#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "command.h"
#include "memjit/codegen/function_lowering.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

constexpr std::string_view kName = "lower";

int lowerCommand(const Args& args) {
  std::optional<std::string> typeText, name;
  codegen::FunctionOptions options;
  bool external = false, metadata = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--name" || a == "--index-bitwidth") {
      if (i + 1 >= args.size()) return usageError(kName, a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--name") {
        name = v;
      } else if (v == "32" || v == "64") {
        options.lowering.indexBitwidth = static_cast<unsigned>(std::stoul(v));
      } else {
        return usageError(kName, "--index-bitwidth must be 32 or 64, got '" + v + "'");
      }
    } else if (a == "--external") {
      external = true;
    } else if (a == "--bare-ptr") {
      options.lowering.barePtr = true;
    } else if (a == "--metadata") {
      metadata = true;
    } else if (!a.empty() && a[0] == '-' && a.size() > 1 && a[1] == '-') {
      return usageError(kName, "unknown option '" + a + "'");
    } else if (typeText) {
      return usageError(kName, "expects one function type, got a second: '" + a + "'");
    } else {
      typeText = a;
    }
  }
  if (!typeText) return usageError(kName, "expects a function type, e.g. '(memref<?xf32>) -> f32'");
  if (!name) return usageError(kName, "needs --name NAME");
  auto type = parseFunctionType(*typeText);
  if (!type) return fail(kName, type.error());

  // The module name mlir-translate gives its output, so the two diff cleanly.
  codegen::Module module("LLVMDialectModule");
  if (external) {
    auto f = codegen::declareExternalFunction(module, *name, *type, options);
    if (!f) return fail(kName, f.error());
  } else {
    auto f = codegen::defineFunction(module, *name, *type, options);
    if (!f) return fail(kName, f.error());
    if (Error e = codegen::emitZeroBody(module, *name)) return fail(kName, e);
  }
  llvm::Module& m = module.llvm();
  if (!metadata) {
    std::vector<llvm::GlobalVariable*> drop;
    for (llvm::GlobalVariable& g : m.globals())
      if (g.getName().starts_with("_memjit_")) drop.push_back(&g);
    for (llvm::GlobalVariable* g : drop) g->eraseFromParent();
  }
  m.setSourceFileName("LLVMDialectModule");
  m.addModuleFlag(llvm::Module::Warning, "Debug Info Version", 3);
  if (Error e = module.verify()) return fail(kName, e);
  std::string text;
  llvm::raw_string_ostream os(text);
  m.print(os, nullptr);
  os.flush();
  std::cout << text;
  return 0;
}

const Registrar registrar(
    {"lower",
     "memjit lower '<function type>' --name NAME [--external] [--index-bitwidth 32] [--bare-ptr] [--metadata]",
     "print the LLVM IR of a function lowered with MLIR's memref calling convention and its C interface",
     lowerCommand});

}  // namespace
}  // namespace memjit::cli
