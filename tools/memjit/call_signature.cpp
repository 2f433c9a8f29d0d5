#include "call_signature.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/raw_ostream.h>

#include "memjit/codegen/lowering.h"
#include "memjit/metadata_symbols.h"
#include "memjit/type_syntax.h"

namespace memjit::cli {
namespace {

std::string llvmName(const llvm::Type* type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type->print(os);
  return os.str();
}

// "float (ptr, i64)", as LLVM writes a function type.
std::string functionTypeText(const std::string& result, const std::vector<std::string>& parameters, bool variadic) {
  std::string text = result + " (";
  for (std::size_t i = 0; i < parameters.size(); ++i) text += (i ? ", " : "") + parameters[i];
  if (variadic) text += parameters.empty() ? "..." : ", ...";
  return text + ")";
}

}  // namespace

Error checkAgainstIR(const jit::Program& program, const std::string& name, const FunctionType& type,
                     const std::string& text) {
  const std::string ciface = metadata::symbolName(metadata::kCInterfacePrefix, name);
  std::optional<jit::IRFunctionType> actual = program.irFunctionType(ciface);
  if (!actual) return Error::success();
  llvm::LLVMContext context;
  auto expected = codegen::cInterfaceFunctionType(context, type, {});
  if (!expected) return expected.error().withContext("--signature " + name);
  std::vector<std::string> parameters;
  for (const llvm::Type* parameter : (*expected)->params()) parameters.push_back(llvmName(parameter));
  const std::string result = llvmName((*expected)->getReturnType());
  if (result == actual->result && parameters == actual->parameters && !actual->variadic) return Error::success();
  return Error(ErrorCode::TypeMismatch,
               "--signature " + name + "='" + text + "' does not fit '" + ciface + "' in '" + program.path() +
                   "': the C interface of that type is " + functionTypeText(result, parameters, false) +
                   ", the IR's is " + functionTypeText(actual->result, actual->parameters, actual->variadic));
}

Error checkAgainstMetadata(const std::string& file, const std::string& name, const FunctionType& type,
                           const std::string& text, const FunctionType& metadataType) {
  if (type == metadataType) return Error::success();
  return Error(ErrorCode::TypeMismatch, "--signature " + name + "='" + text + "' contradicts the signature metadata in '" +
                                            file + "', which gives '" + name + "' the type " + toString(metadataType));
}

}  // namespace memjit::cli
