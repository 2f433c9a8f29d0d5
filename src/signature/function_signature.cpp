#include "memjit/signature/function_signature.h"

#include <set>
#include <string_view>

#include "memjit/signature/raw_signature.h"
#include "memjit/signature/reflection.h"

namespace memjit::signature {

namespace {

Error checkArgumentNames(const std::string& function, const FunctionType& type,
                         const std::vector<std::string>& names) {
  auto invalid = [&](const std::string& what) {
    return Error(ErrorCode::InvalidArgument, "function '" + function + "': " + what);
  };
  if (names.size() != type.inputs.size())
    return invalid(std::to_string(names.size()) + " argument names for " + std::to_string(type.inputs.size()) +
                   " inputs");
  std::set<std::string_view> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) return invalid("argument " + std::to_string(i) + " has an empty name");
    if (!seen.insert(names[i]).second)
      return invalid("argument " + std::to_string(i) + " repeats the name '" + names[i] + "'");
  }
  return Error::success();
}

}  // namespace

Expected<FunctionSignature> describe(std::string name, const FunctionType& type,
                                     const std::vector<std::string>& argumentNames) {
  if (name.empty()) return Error(ErrorCode::InvalidArgument, "a function signature needs a non-empty name");
  Reflection reflection = defaultReflection(type);
  if (!argumentNames.empty()) {
    MEMJIT_TRY(checkArgumentNames(name, type, argumentNames));
    for (std::size_t i = 0; i < argumentNames.size(); ++i)
      reflection.args[i] = TypeRecord::named(argumentNames[i], std::move(reflection.args[i]));
  }
  FunctionSignature sig;
  sig.name = std::move(name);
  sig.type = type;
  sig.raw = mangle(toRawSignature(type));
  sig.reflection = toJson(reflection);
  return sig;
}

std::vector<std::string> argumentNames(const FunctionSignature& signature) {
  std::vector<std::string> names(signature.type.inputs.size());
  if (signature.reflection.empty()) return names;
  auto reflection = parseReflection(signature.reflection);
  if (!reflection || reflection->args.size() != names.size()) return names;
  for (std::size_t i = 0; i < names.size(); ++i)
    if (reflection->args[i].kind == RecordKind::Named) names[i] = reflection->args[i].name;
  return names;
}

}  // namespace memjit::signature
