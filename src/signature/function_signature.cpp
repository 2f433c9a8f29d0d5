#include "memjit/signature/function_signature.h"

#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"

namespace memjit::signature {

Expected<FunctionSignature> describe(std::string name, const FunctionType& type) {
  if (name.empty()) return Error(ErrorCode::InvalidArgument, "a function signature needs a non-empty name");
  FunctionSignature sig;
  sig.name = std::move(name);
  sig.type = type;
  sig.raw = mangle(toRawSignature(type));
  sig.reflection = toJson(defaultReflection(type));
  return sig;
}

}  // namespace memjit::signature
