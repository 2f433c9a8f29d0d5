#include "memjit/jit/program.h"

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "compile.h"
#include "function_record.h"
#include "global_structors.h"
#include "memjit/metadata_symbols.h"
#include "memjit/signature/function_signature.h"
#include "memjit/type_syntax.h"

namespace memjit::jit {
namespace {

std::string typeName(const llvm::Type* type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type->print(os);
  return os.str();
}

bool isObjectFile(llvm::StringRef bytes) { return bytes.starts_with("\x7f" "ELF"); }

// A Function built from type text instead of metadata; it keeps its module loaded.
struct TypedRecord {
  LoadedModule module;
  detail::FunctionRecord record;
};

}  // namespace

Program::Program(Program&&) noexcept = default;

Program& Program::operator=(Program&& other) noexcept {
  if (this != &other) {
    runDestructors();
    path_ = std::move(other.path_);
    module_ = std::move(other.module_);
    irTypes_ = std::move(other.irTypes_);
    constructed_ = std::exchange(other.constructed_, false);
    destructed_ = std::exchange(other.destructed_, false);
  }
  return *this;
}

Program::~Program() { runDestructors(); }

void Program::runConstructors() {
  if (!module_.valid() || constructed_) return;
  constructed_ = true;
  if (auto address = module_.symbol(detail::kGlobalConstructorsSymbol))
    reinterpret_cast<void (*)()>(*address)();
}

void Program::runDestructors() {
  if (!module_.valid() || !constructed_ || destructed_) return;
  destructed_ = true;
  if (auto address = module_.symbol(detail::kGlobalDestructorsSymbol))
    reinterpret_cast<void (*)()>(*address)();
}

Expected<Function> Program::function(std::string_view name) const { return module_.function(name); }

Expected<Function> Program::function(std::string_view name, std::string_view type) const {
  auto parsed = parseFunctionType(type);
  if (!parsed) return parsed.error().withContext("type of function '" + std::string(name) + "'");
  const std::string ciface = metadata::symbolName(metadata::kCInterfacePrefix, name);
  auto address = module_.symbol(ciface);
  if (!address)
    return Error(ErrorCode::NotFound, "'" + path_ + "' defines no '" + ciface + "' (the C interface of function '" +
                                          std::string(name) + "'; MLIR emits it for functions marked "
                                          "llvm.emit_c_interface)");
  auto holder = std::make_shared<TypedRecord>();
  holder->module = module_;
  MEMJIT_ASSIGN_OR_RETURN(holder->record.signature, signature::describe(std::string(name), *parsed));
  holder->record.cInterface = *address;
  if (auto expanded = module_.symbol(name)) holder->record.expanded = *expanded;
  auto invoker = runtime::Callable::create(*address, holder->record.signature);
  if (!invoker) return invoker.error().withContext("function '" + std::string(name) + "'");
  holder->record.invoker = std::move(*invoker);
  const detail::FunctionRecord* record = &holder->record;
  return Function(std::shared_ptr<const detail::FunctionRecord>(std::move(holder), record));
}

Expected<void*> Program::symbol(std::string_view name) const {
  auto address = module_.symbol(name);
  if (!address) return Error(ErrorCode::NotFound, "'" + path_ + "' defines no symbol '" + std::string(name) + "'");
  return address;
}

std::optional<IRFunctionType> Program::irFunctionType(std::string_view name) const {
  auto it = irTypes_.find(name);
  if (it == irTypes_.end()) return std::nullopt;
  return it->second;
}

Expected<Program> loadProgram(Jit& jit, const std::string& path, ProgramOptions options) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return Error(ErrorCode::IoError, "cannot read '" + path + "': " + buffer.getError().message());
  AddOptions add;
  add.sharedLibraries = std::move(options.sharedLibraries);
  add.runnerUtilities = options.runnerUtilities;
  // mlir-cpu-runner's code generator works at the default level whatever -O
  // says below -O3 (its objects at -O0 and without -O are the same bytes).
  add.optLevel = options.optLevel.value_or(OptLevel::O2);
  add.codegenLevel = add.optLevel == OptLevel::O3 ? OptLevel::O3 : OptLevel::O2;
  add.runIRPasses = options.optLevel.has_value();

  Program program;
  program.path_ = path;
  const llvm::StringRef bytes = (*buffer)->getBuffer();
  if (isObjectFile(bytes)) {
    auto module = jit.addObject(std::string_view(bytes.data(), bytes.size()), path, std::move(add));
    if (!module) return module.error();  // it names the module, i.e. the path
    program.module_ = std::move(*module);
    return program;
  }

  auto context = std::make_unique<llvm::LLVMContext>();
  MEMJIT_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> module,
                          detail::parseIR((*buffer)->getMemBufferRef(), *context,
                                          "'" + path + "' is neither LLVM IR nor an object file"));
  module->setModuleIdentifier(path);
  for (const llvm::Function& function : *module) {
    if (function.isDeclaration()) continue;
    IRFunctionType type;
    type.result = typeName(function.getReturnType());
    for (const llvm::Type* parameter : function.getFunctionType()->params())
      type.parameters.push_back(typeName(parameter));
    type.variadic = function.isVarArg();
    program.irTypes_.emplace(function.getName().str(), std::move(type));
  }
  auto loaded = jit.add(std::move(context), std::move(module), std::move(add));
  if (!loaded) return loaded.error();  // it names the module, i.e. the path
  program.module_ = std::move(*loaded);
  return program;
}

}  // namespace memjit::jit
