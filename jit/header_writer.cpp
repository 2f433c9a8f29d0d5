// The AOT header: `_mlir_ciface_` declarations with runtime descriptor types,
// metadata accessors and inline wrappers.
#include <cctype>
#include <set>
#include <sstream>

#include "memjit/jit/aot.h"
#include "memjit/metadata_symbols.h"
#include "memjit/signature/function_signature.h"
#include "memjit/type_syntax.h"

namespace memjit::jit {
namespace {

// The C type of a memref element in memory.
std::string elementCType(ElementType t) {
  switch (t) {
    case ElementType::I1: return "bool";
    case ElementType::I8: case ElementType::SI8: return "std::int8_t";
    case ElementType::UI8: return "std::uint8_t";
    case ElementType::I16: case ElementType::SI16: return "std::int16_t";
    case ElementType::UI16: return "std::uint16_t";
    case ElementType::I32: case ElementType::SI32: return "std::int32_t";
    case ElementType::UI32: return "std::uint32_t";
    case ElementType::I64: case ElementType::SI64: case ElementType::Index: return "std::int64_t";
    case ElementType::UI64: return "std::uint64_t";
    case ElementType::F16: return "memjit::f16";
    case ElementType::BF16: return "memjit::bf16";
    case ElementType::F32: return "float";
    case ElementType::F64: return "double";
    case ElementType::Ptr: return "void*";
    case ElementType::ComplexF32: return "std::complex<float>";
    case ElementType::ComplexF64: return "std::complex<double>";
  }
  return "void";
}

// A scalar passed or returned by value: the C ABI must agree with LLVM's.
// memjit::f16 is a struct and would travel in an integer register where LLVM
// passes a half in an XMM one, so f16/bf16 scalars are spelled with the
// carrier half.h defines for the compiler reading the header (_Float16,
// __bf16, or a float holding the bits on x86-64 SysV); in a result struct
// (memory) the value types are exact.
Expected<std::string> scalarCType(ElementType t, const std::string& fn, bool byValue = true) {
  if (isComplex(t))
    return Error(ErrorCode::Unsupported,
                 "function '" + fn + "': a " + std::string(spelling(t)) +
                     " scalar has no portable C spelling at the C interface");
  if (byValue && (t == ElementType::F16 || t == ElementType::BF16)) return elementCType(t) + "::abi_type";
  return elementCType(t);
}

std::string descriptorCType(const Type& t) {
  if (const auto* ranked = std::get_if<MemRefType>(&t))
    return "memjit::runtime::StridedMemRef<" + elementCType(ranked->element()) + ", " +
           std::to_string(ranked->rank()) + ">";
  const auto& unranked = std::get<UnrankedMemRefType>(t);
  return "memjit::runtime::UnrankedMemRef<" + elementCType(unranked.element) + ">";
}

std::string identifier(const std::string& name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "m_" + id;
  return id;
}

bool isCppKeyword(const std::string& id) {
  static const char* const kKeywords[] = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case",
      "catch", "char", "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield",
      "compl", "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue",
      "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit",
      "export", "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq",
      "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
      "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template",
      "this", "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union",
      "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq"};
  for (const char* k : kKeywords)
    if (id == k) return true;
  return false;
}

// The C++ parameter names: the signature's argument names made identifiers
// (a keyword or `result`, the out-parameter, gets a trailing '_'), `argN`
// where there is none or two would collide.
std::vector<std::string> parameterNames(const signature::FunctionSignature& fn) {
  std::vector<std::string> names = signature::argumentNames(fn);
  std::set<std::string> used;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string id;
    if (!names[i].empty()) {
      id = identifier(names[i]);
      if (isCppKeyword(id) || id == "result" || id == "memjit" || id == "std" || id.rfind("arg", 0) == 0)
        id += '_';
    }
    if (id.empty() || !used.insert(id).second) id = "arg" + std::to_string(i);
    used.insert(id);
    names[i] = id;
  }
  return names;
}

struct CSignature {
  std::string returnType = "void";
  std::vector<std::string> parameters;  // types
  std::vector<std::string> names;
  std::string resultStruct;  // definition, when several results
};

Expected<CSignature> lowerToC(const signature::FunctionSignature& fn, const std::string& structName) {
  CSignature c;
  const std::vector<std::string> argNames = parameterNames(fn);
  const auto& results = fn.type.results;
  if (results.size() == 1 && isScalar(results[0])) {
    MEMJIT_ASSIGN_OR_RETURN(c.returnType, scalarCType(std::get<ElementType>(results[0]), fn.name));
  } else if (results.size() == 1) {
    c.parameters.push_back(descriptorCType(results[0]) + "*");
    c.names.push_back("result");
  } else if (results.size() > 1) {
    // MLIR packs several results into one struct written through the first parameter.
    std::ostringstream def;
    def << "struct " << structName << " {\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::string type;
      if (isScalar(results[i])) {
        MEMJIT_ASSIGN_OR_RETURN(type, scalarCType(std::get<ElementType>(results[i]), fn.name, false));
      } else {
        type = descriptorCType(results[i]);
      }
      def << "  " << type << " r" << i << ";\n";
    }
    def << "};\n";
    c.resultStruct = def.str();
    c.parameters.push_back(structName + "*");
    c.names.push_back("result");
  }
  for (std::size_t i = 0; i < fn.type.inputs.size(); ++i) {
    const Type& t = fn.type.inputs[i];
    if (isScalar(t)) {
      MEMJIT_ASSIGN_OR_RETURN(auto type, scalarCType(std::get<ElementType>(t), fn.name));
      c.parameters.push_back(type);
    } else {
      c.parameters.push_back(descriptorCType(t) + "*");
    }
    c.names.push_back(argNames[i]);
  }
  return c;
}

// The by-value C++ wrapper of one function: what a C++ user would write by
// hand over the C interface. Memref parameters are MemRefArg views (a
// descriptor, an OwnedMemRef, a span or vector for rank 1); results come back
// by value: scalars as they are, memrefs as OwnedMemRef (freed once, unless
// they alias an argument), several as a std::tuple. The call goes through the
// typed invoker (TypedCallable::trusted), which does the ownership.
struct CppWrapper {
  std::string returnType;
  std::vector<std::string> parameters;  // "type name"
  std::vector<std::string> arguments;   // names, in order
  std::string invokerType;              // R(Args...) of the typed invoker
};

const char* const kRuntime = "::memjit::runtime::";

CppWrapper lowerToCpp(const signature::FunctionSignature& fn, const CSignature& c) {
  auto resultType = [](const Type& t) -> std::string {
    if (isScalar(t)) return elementCType(std::get<ElementType>(t));
    if (const auto* ranked = std::get_if<MemRefType>(&t))
      return std::string(kRuntime) + "OwnedMemRef<" + elementCType(ranked->element()) + ", " +
             std::to_string(ranked->rank()) + ">";
    return std::string(kRuntime) + "OwnedUnrankedMemRef<" +
           elementCType(std::get<UnrankedMemRefType>(t).element) + ">";
  };
  CppWrapper w;
  const auto& results = fn.type.results;
  if (results.empty()) {
    w.returnType = "void";
  } else if (results.size() == 1) {
    w.returnType = resultType(results[0]);
  } else {
    w.returnType = "std::tuple<";
    for (std::size_t i = 0; i < results.size(); ++i) w.returnType += (i ? ", " : "") + resultType(results[i]);
    w.returnType += ">";
  }
  std::string inputs;
  const std::size_t firstInput = c.names.size() - fn.type.inputs.size();
  for (std::size_t i = 0; i < fn.type.inputs.size(); ++i) {
    const Type& t = fn.type.inputs[i];
    const std::string& name = c.names[firstInput + i];
    std::string param, invokerArg;
    if (isScalar(t)) {
      param = invokerArg = elementCType(std::get<ElementType>(t));
    } else if (const auto* ranked = std::get_if<MemRefType>(&t)) {
      const std::string args = elementCType(ranked->element()) + ", " + std::to_string(ranked->rank()) + ">";
      param = std::string(kRuntime) + "MemRefArg<" + args;
      invokerArg = std::string(kRuntime) + "StridedMemRef<" + args;
    } else {
      invokerArg = std::string(kRuntime) + "UnrankedMemRef<" +
                   elementCType(std::get<UnrankedMemRefType>(t).element) + ">";
      param = "const " + invokerArg + "&";
    }
    w.parameters.push_back(param + " " + name);
    w.arguments.push_back(name);
    inputs += (i ? ", " : "") + invokerArg;
  }
  w.invokerType = w.returnType + "(" + inputs + ")";
  return w;
}


std::string cString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string commaSeparated(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

// The header's per-function parts, filled function by function.
struct HeaderParts {
  std::ostringstream structs;   // result structs, in the wrapper namespace
  std::ostringstream externs;   // C interfaces and metadata strings, in extern "C"
  std::ostringstream wrappers;  // inline C++ wrappers, in the wrapper namespace
  std::ostringstream table;     // kFunctions' entries
};

// The function's C interface and the metadata strings the object defines for it.
void declareCInterface(const signature::FunctionSignature& fn, const CSignature& c, const std::string& ns,
                       HeaderParts& parts) {
  std::vector<std::string> params;
  for (std::size_t i = 0; i < c.parameters.size(); ++i) {
    const std::string& type = c.parameters[i];
    // The result struct lives in the wrapper namespace.
    const std::string qualified = (!c.resultStruct.empty() && i == 0) ? "::" + ns + "::" + type : type;
    params.push_back(qualified + " " + c.names[i]);
  }
  if (!c.resultStruct.empty()) parts.structs << "/// Results of " << fn.name << ", in order.\n" << c.resultStruct;
  parts.externs << "/// " << fn.name << " : " << toString(fn.type) << "\n"
                << c.returnType << " " << metadata::symbolName(metadata::kCInterfacePrefix, fn.name) << "("
                << commaSeparated(params) << ");\n";
  auto declare = [&](std::string_view prefix) {
    parts.externs << "extern const char " << metadata::symbolName(prefix, fn.name) << "[];\n";
  };
  declare(metadata::kTypePrefix);
  declare(metadata::kRawPrefix);
  declare(metadata::kReflectionPrefix);
  if (fn.sip) declare(metadata::kSipPrefix);
  if (fn.resultAllocator) declare(metadata::kAllocatorPrefix);
}

// An inline C++ function calling the C interface through the typed invoker.
void writeWrapper(const signature::FunctionSignature& fn, const CSignature& c, HeaderParts& parts) {
  const CppWrapper w = lowerToCpp(fn, c);
  parts.wrappers << "/// " << fn.name << " : " << toString(fn.type) << "\n"
                 << "inline " << w.returnType << " " << fn.name << "(" << commaSeparated(w.parameters) << ") {\n"
                 << "  return " << kRuntime << "TypedCallable<" << w.invokerType << ">::trusted(\n"
                 << "      reinterpret_cast<void*>(&" << metadata::symbolName(metadata::kCInterfacePrefix, fn.name)
                 << "))(" << commaSeparated(w.arguments) << ");\n}\n";
}

// The function's FunctionInfo entry in kFunctions.
void writeTableEntry(const signature::FunctionSignature& fn, HeaderParts& parts) {
  auto sym = [&](std::string_view prefix, bool present) {
    return present ? metadata::symbolName(prefix, fn.name) : std::string("nullptr");
  };
  parts.table << "    {" << cString(fn.name) << ", reinterpret_cast<void*>(&"
              << metadata::symbolName(metadata::kCInterfacePrefix, fn.name) << "), "
              << sym(metadata::kTypePrefix, true) << ", " << sym(metadata::kRawPrefix, true) << ", "
              << sym(metadata::kReflectionPrefix, true) << ", " << sym(metadata::kSipPrefix, fn.sip.has_value())
              << ", " << sym(metadata::kAllocatorPrefix, fn.resultAllocator.has_value()) << "},\n";
}

// The file: includes, the result structs, the C declarations, the function
// table and the wrappers.
std::string assembleHeader(const HeaderParts& parts, const std::string& ns, const HeaderOptions& options,
                           std::size_t functionCount) {
  std::ostringstream out;
  out << "// Generated by memjit for module '" << options.moduleName << "'. Do not edit.\n"
      << "// Declares the module's C interfaces (`_mlir_ciface_*`, MLIR's convention) with\n"
      << "// memjit::runtime descriptor types, and the signature metadata the object embeds.\n"
      << "// Link the object with memjit::runtime (memjit_add_aot_library does): its kernels'\n"
      << "// parallel loops call memjit_parallel_for there, which runs on libgomp's pool.\n"
      << "#pragma once\n\n#include <complex>\n#include <cstddef>\n#include <cstdint>\n"
      << "#include <string_view>\n#include <tuple>\n\n#include \"memjit/runtime/half.h\"\n#include \"memjit/runtime/memref.h\"\n"
      << "#include \"memjit/runtime/memref_arg.h\"\n#include \"memjit/runtime/owned_memref.h\"\n"
      << "#include \"memjit/runtime/typed_callable.h\"\n\n"
      << "namespace " << ns << " {\n" << parts.structs.str() << "}  // namespace " << ns << "\n\n"
      << "extern \"C\" {\n" << parts.externs.str() << "}\n\n"
      << "namespace " << ns << " {\n\n"
      << "/// One function's C interface and metadata strings (null when absent).\n"
      << "struct FunctionInfo {\n  const char* name;\n  void* cInterface;\n  const char* type;\n"
      << "  const char* raw;\n  const char* reflection;\n  const char* sip;\n"
      << "  const char* resultAllocator;\n};\n\n"
      << "/// Every function of the module, in name order.\n"
      << "inline const FunctionInfo kFunctions[] = {\n" << parts.table.str()
      << (functionCount == 0 ? "    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr},\n" : "")
      << "};\ninline constexpr std::size_t kFunctionCount = " << functionCount << ";\n\n"
      << "/// The entry for `name`, or nullptr.\n"
      << "inline const FunctionInfo* findFunction(std::string_view name) {\n"
      << "  for (std::size_t i = 0; i < kFunctionCount; ++i)\n"
      << "    if (name == kFunctions[i].name) return &kFunctions[i];\n  return nullptr;\n}\n\n"
      << parts.wrappers.str() << "\n}  // namespace " << ns << "\n";
  return out.str();
}

}  // namespace

Expected<std::string> cInterfaceType(const signature::FunctionSignature& function) {
  MEMJIT_ASSIGN_OR_RETURN(auto c, lowerToC(function, function.name + "_results"));
  return c.returnType + "(" + commaSeparated(c.parameters) + ")";
}

Expected<std::string> generateHeader(const std::vector<signature::FunctionSignature>& functions,
                                     const HeaderOptions& options) {
  const std::string ns =
      identifier(options.cppNamespace.empty() ? options.moduleName : options.cppNamespace);
  HeaderParts parts;
  for (const auto& fn : functions) {
    MEMJIT_ASSIGN_OR_RETURN(auto c, lowerToC(fn, fn.name + "_results"));
    declareCInterface(fn, c, ns, parts);
    writeWrapper(fn, c, parts);
    writeTableEntry(fn, parts);
  }
  return assembleHeader(parts, ns, options, functions.size());
}

}  // namespace memjit::jit
