// The AOT header: `_mlir_ciface_` declarations with runtime descriptor types,
// metadata accessors and inline wrappers.
#include <cctype>
#include <sstream>

#include "memjit/jit/aot.h"
#include "memjit/metadata_symbols.h"
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

struct CSignature {
  std::string returnType = "void";
  std::vector<std::string> parameters;  // types
  std::vector<std::string> names;
  std::string resultStruct;  // definition, when several results
};

Expected<CSignature> lowerToC(const signature::FunctionSignature& fn, const std::string& structName) {
  CSignature c;
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
    c.names.push_back("arg" + std::to_string(i));
  }
  return c;
}

std::string cString(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

}  // namespace

Expected<std::string> cInterfaceType(const signature::FunctionSignature& function) {
  MEMJIT_ASSIGN_OR_RETURN(auto c, lowerToC(function, function.name + "_results"));
  std::string text = c.returnType + "(";
  for (std::size_t i = 0; i < c.parameters.size(); ++i) text += (i ? ", " : "") + c.parameters[i];
  return text + ")";
}

Expected<std::string> generateHeader(const std::vector<signature::FunctionSignature>& functions,
                                     const HeaderOptions& options) {
  const std::string ns =
      identifier(options.cppNamespace.empty() ? options.moduleName : options.cppNamespace);
  std::ostringstream externs, wrappers, structs, table;
  for (const auto& fn : functions) {
    const std::string ciface = metadata::symbolName(metadata::kCInterfacePrefix, fn.name);
    MEMJIT_ASSIGN_OR_RETURN(auto c, lowerToC(fn, fn.name + "_results"));
    std::string params, args;
    for (std::size_t i = 0; i < c.parameters.size(); ++i) {
      const std::string& type = c.parameters[i];
      // The result struct lives in the wrapper namespace.
      const std::string qualified =
          (!c.resultStruct.empty() && i == 0) ? "::" + ns + "::" + type : type;
      params += (i ? ", " : "") + qualified + " " + c.names[i];
      args += (i ? ", " : "") + c.names[i];
    }
    if (!c.resultStruct.empty()) structs << "/// Results of " << fn.name << ", in order.\n" << c.resultStruct;
    externs << "/// " << fn.name << " : " << toString(fn.type) << "\n"
            << c.returnType << " " << ciface << "(" << params << ");\n";
    auto declare = [&](std::string_view prefix) {
      externs << "extern const char " << metadata::symbolName(prefix, fn.name) << "[];\n";
    };
    declare(metadata::kTypePrefix);
    declare(metadata::kRawPrefix);
    declare(metadata::kReflectionPrefix);
    if (fn.sip) declare(metadata::kSipPrefix);
    if (fn.resultAllocator) declare(metadata::kAllocatorPrefix);
    wrappers << "/// Calls `" << ciface << "`: " << toString(fn.type) << "\n"
             << "inline " << c.returnType << " " << fn.name << "(" << params << ") {\n  "
             << (c.returnType == "void" ? "" : "return ") << ciface << "(" << args << ");\n}\n";
    auto sym = [&](std::string_view prefix, bool present) {
      return present ? metadata::symbolName(prefix, fn.name) : std::string("nullptr");
    };
    table << "    {" << cString(fn.name) << ", reinterpret_cast<void*>(&" << ciface << "), "
          << sym(metadata::kTypePrefix, true) << ", " << sym(metadata::kRawPrefix, true) << ", "
          << sym(metadata::kReflectionPrefix, true) << ", "
          << sym(metadata::kSipPrefix, fn.sip.has_value()) << ", "
          << sym(metadata::kAllocatorPrefix, fn.resultAllocator.has_value()) << "},\n";
  }

  std::ostringstream out;
  out << "// Generated by memjit for module '" << options.moduleName << "'. Do not edit.\n"
      << "// Declares the module's C interfaces (`_mlir_ciface_*`, MLIR's convention) with\n"
      << "// memjit::runtime descriptor types, and the signature metadata the object embeds.\n"
      << "// Link the object with memjit::runtime (memjit_add_aot_library does): its kernels'\n"
      << "// parallel loops call memjit_parallel_for there, which runs on libgomp's pool.\n"
      << "#pragma once\n\n#include <complex>\n#include <cstddef>\n#include <cstdint>\n"
      << "#include <string_view>\n\n#include \"memjit/runtime/half.h\"\n#include \"memjit/runtime/memref.h\"\n\n"
      << "namespace " << ns << " {\n" << structs.str() << "}  // namespace " << ns << "\n\n"
      << "extern \"C\" {\n" << externs.str() << "}\n\n"
      << "namespace " << ns << " {\n\n"
      << "/// One function's C interface and metadata strings (null when absent).\n"
      << "struct FunctionInfo {\n  const char* name;\n  void* cInterface;\n  const char* type;\n"
      << "  const char* raw;\n  const char* reflection;\n  const char* sip;\n"
      << "  const char* resultAllocator;\n};\n\n"
      << "/// Every function of the module, in name order.\n"
      << "inline const FunctionInfo kFunctions[] = {\n" << table.str()
      << (functions.empty() ? "    {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr},\n" : "")
      << "};\ninline constexpr std::size_t kFunctionCount = " << functions.size() << ";\n\n"
      << "/// The entry for `name`, or nullptr.\n"
      << "inline const FunctionInfo* findFunction(std::string_view name) {\n"
      << "  for (std::size_t i = 0; i < kFunctionCount; ++i)\n"
      << "    if (name == kFunctions[i].name) return &kFunctions[i];\n  return nullptr;\n}\n\n"
      << wrappers.str() << "\n}  // namespace " << ns << "\n";
  return out.str();
}

}  // namespace memjit::jit
