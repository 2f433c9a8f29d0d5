// Disassembling one function of an object with LLVM's MC layer (what
// llvm-objdump -d -l --symbolize-operands does, for one symbol).
#include "disassembly.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include "compile.h"
#include "llvm_compat.h"
#include "llvm_error.h"
#include "object_archive.h"
#include "memjit/jit/target.h"

namespace memjit::jit::detail {
namespace {

// The MC objects that decode and print host instructions.
struct HostDisassembler {
  std::unique_ptr<llvm::MCRegisterInfo> registers;
  std::unique_ptr<llvm::MCAsmInfo> asmInfo;
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
  std::unique_ptr<llvm::MCInstrInfo> instructions;
  std::unique_ptr<llvm::MCContext> context;
  std::unique_ptr<llvm::MCDisassembler> disassembler;
  std::unique_ptr<llvm::MCInstPrinter> printer;
  bool x86 = false;
};

Expected<std::unique_ptr<HostDisassembler>> makeHostDisassembler() {
  initializeNativeTarget();
  static std::once_flag once;
  std::call_once(once, [] { llvm::InitializeNativeTargetDisassembler(); });
  const TargetSpec& host = TargetSpec::host();
  std::string message;
  const llvm::Target* target = llvm_compat::lookupTarget(host.triple, message);
  if (!target) return Error(ErrorCode::Unsupported, "no LLVM target for '" + host.triple + "': " + message);
  auto d = std::make_unique<HostDisassembler>();
  const llvm::Triple triple(host.triple);
  llvm::MCTargetOptions options;
  d->registers.reset(llvm_compat::createMCRegInfo(*target, triple));
  if (d->registers) d->asmInfo.reset(llvm_compat::createMCAsmInfo(*target, *d->registers, triple, options));
  d->subtarget.reset(llvm_compat::createMCSubtargetInfo(*target, triple, host.cpu, host.features));
  d->instructions.reset(target->createMCInstrInfo());
  if (!d->registers || !d->asmInfo || !d->subtarget || !d->instructions)
    return Error(ErrorCode::Unsupported, "LLVM has no machine-code layer for '" + host.triple + "'");
  d->context = std::make_unique<llvm::MCContext>(triple, d->asmInfo.get(), d->registers.get(), d->subtarget.get());
  d->disassembler.reset(target->createMCDisassembler(*d->subtarget, *d->context));
  d->printer.reset(target->createMCInstPrinter(triple, d->asmInfo->getAssemblerDialect(), *d->asmInfo,
                                               *d->instructions, *d->registers));
  if (!d->disassembler || !d->printer)
    return Error(ErrorCode::Unsupported, "LLVM has no disassembler for '" + host.triple + "'");
  // Branch targets as offsets in the function, like the offsets printed at each line.
  d->printer->setPrintBranchImmAsAddress(true);
  d->x86 = triple.isX86();
  return d;
}

struct FoundFunction {
  llvm::object::SectionRef section;
  std::uint64_t offset = 0;  // in the section
  std::uint64_t size = 0;
};

Expected<FoundFunction> findFunction(const llvm::object::ObjectFile& file, std::string_view name) {
  for (const llvm::object::SymbolRef& symbol : file.symbols()) {
    auto symbolName = symbol.getName();
    if (!symbolName) {
      llvm::consumeError(symbolName.takeError());
      continue;
    }
    if (*symbolName != llvm::StringRef(name.data(), name.size())) continue;
    auto type = symbol.getType();
    auto section = symbol.getSection();
    auto value = symbol.getValue();
    if (!type || !section || !value || *type != llvm::object::SymbolRef::ST_Function ||
        *section == file.section_end()) {
      if (!type) llvm::consumeError(type.takeError());
      if (!section) llvm::consumeError(section.takeError());
      if (!value) llvm::consumeError(value.takeError());
      continue;
    }
    FoundFunction found{**section, *value, 0};
    if (llvm::isa<llvm::object::ELFObjectFileBase>(&file)) found.size = llvm::object::ELFSymbolRef(symbol).getSize();
    return found;
  }
  return Error(ErrorCode::NotFound, "the object defines no function '" + std::string(name) + "'");
}

// Relocations applied inside the function: offset in the section -> what they name.
std::map<std::uint64_t, std::string> relocationTargets(const llvm::object::ObjectFile& file,
                                                       const llvm::object::SectionRef& code) {
  std::map<std::uint64_t, std::string> targets;
  for (const llvm::object::SectionRef& section : file.sections()) {
    auto relocated = section.getRelocatedSection();
    if (!relocated) {
      llvm::consumeError(relocated.takeError());
      continue;
    }
    if (*relocated != code) continue;
    for (const llvm::object::RelocationRef& relocation : section.relocations()) {
      auto symbol = relocation.getSymbol();
      if (symbol == file.symbol_end()) continue;
      std::string name;
      if (auto n = symbol->getName(); n && !n->empty()) {
        name = n->str();
      } else {
        if (!n) llvm::consumeError(n.takeError());
        // A section symbol: a constant pool or a jump table; name the section.
        auto target = symbol->getSection();
        if (target && *target != file.section_end())
          if (auto sectionName = (*target)->getName()) name = sectionName->str();
        if (!target) llvm::consumeError(target.takeError());
      }
      if (!name.empty()) targets[relocation.getOffset()] = name;
    }
  }
  return targets;
}

// Source lines by file, read once per call; "" for a line that cannot be read.
class SourceLines {
 public:
  const std::string& line(const std::string& path, std::uint32_t number) {
    auto [it, added] = files_.try_emplace(path);
    if (added) {
      std::ifstream in(path);
      for (std::string text; std::getline(in, text);) it->second.push_back(text);
    }
    static const std::string kNone;
    return number >= 1 && number <= it->second.size() ? it->second[number - 1] : kNone;
  }

 private:
  std::unordered_map<std::string, std::vector<std::string>> files_;
};

// LLVM 22 answers "no line" with nullopt, 19 with an empty DILineInfo.
[[maybe_unused]] const llvm::DILineInfo* lineInfo(const llvm::DILineInfo& info) { return &info; }
[[maybe_unused]] const llvm::DILineInfo* lineInfo(const std::optional<llvm::DILineInfo>& info) { return info ? &*info : nullptr; }

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

Expected<std::string> disassembleFunction(std::string_view objectBytes, std::string_view symbol, const void* loadedAt) {
  MEMJIT_ASSIGN_OR_RETURN(std::vector<std::string_view> objects, objectsIn(objectBytes));
  // A module compiled in parts: the function is in one of its objects.
  std::unique_ptr<llvm::object::ObjectFile> file;
  Expected<FoundFunction> found = Error(ErrorCode::NotFound, "");
  for (std::string_view object : objects) {
    auto read = llvm::object::ObjectFile::createObjectFile(
        llvm::MemoryBufferRef(llvm::StringRef(object.data(), object.size()), "object"));
    if (!read) return fromLLVM(read.takeError(), ErrorCode::ParseError, "cannot read the module's object");
    found = findFunction(**read, symbol);
    if (found) {
      file = std::move(*read);
      break;
    }
  }
  if (!found) return found.error();
  const FoundFunction& function = *found;
  auto contents = function.section.getContents();
  if (!contents) return fromLLVM(contents.takeError(), ErrorCode::ParseError, "cannot read the code section");
  if (function.offset + function.size > contents->size())
    return Error(ErrorCode::ParseError, "function '" + std::string(symbol) + "' lies outside its section");
  MEMJIT_ASSIGN_OR_RETURN(auto host, makeHostDisassembler());
  const auto relocations = relocationTargets(*file, function.section);
  std::unique_ptr<llvm::DWARFContext> dwarf;
  for (const llvm::object::SectionRef& section : file->sections())
    if (auto name = section.getName(); name && *name == ".debug_line")
      dwarf = llvm::DWARFContext::create(*file, llvm::DWARFContext::ProcessDebugRelocations::Process, nullptr,
                                         "", [](llvm::Error e) { llvm::consumeError(std::move(e)); },
                                         [](llvm::Error e) { llvm::consumeError(std::move(e)); });

  std::string text;
  llvm::raw_string_ostream os(text);
  os << symbol << ":  # " << function.size << " bytes at 0x" << hex(reinterpret_cast<std::uintptr_t>(loadedAt))
     << "\n";
  const llvm::ArrayRef<std::uint8_t> bytes(
      reinterpret_cast<const std::uint8_t*>(contents->data()) + function.offset, function.size);
  SourceLines sources;
  std::string lastFile;
  std::uint32_t lastLine = 0;
  const llvm::DILineInfoSpecifier lines(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
                                        llvm::DILineInfoSpecifier::FunctionNameKind::None);
  for (std::uint64_t at = 0; at < bytes.size();) {
    if (dwarf) {
      const auto found = dwarf->getLineInfoForAddress({function.offset + at, function.section.getIndex()}, lines);
      const llvm::DILineInfo* info = lineInfo(found);
      if (info && info->Line != 0 && (info->Line != lastLine || info->FileName != lastFile)) {
        os << "; " << info->FileName << ":" << info->Line;
        const std::string& source = sources.line(info->FileName, info->Line);
        if (!source.empty()) os << ":  " << llvm::StringRef(source).trim();
        os << "\n";
        lastFile = info->FileName;
        lastLine = info->Line;
      }
    }
    llvm::MCInst instruction;
    std::uint64_t size = 0;
    os << "  " << llvm::format_hex_no_prefix(at, 4) << ":  ";
    if (host->disassembler->getInstruction(instruction, size, bytes.slice(at), at, llvm::nulls()) !=
            llvm::MCDisassembler::Success ||
        size == 0) {
      os << ".byte 0x" << llvm::format_hex_no_prefix(bytes[at], 2) << "\n";
      ++at;
      continue;
    }
    std::string printed;
    llvm::raw_string_ostream line(printed);
    // x86 branch displacements count from the next instruction; others' from this one.
    host->printer->printInst(&instruction, host->x86 ? at + size : at, "", *host->subtarget, line);
    line.flush();
    os << llvm::StringRef(printed).ltrim();
    auto relocation = relocations.lower_bound(function.offset + at);
    if (relocation != relocations.end() && relocation->first < function.offset + at + size)
      os << "  # " << relocation->second;
    os << "\n";
    at += size;
  }
  os.flush();
  return text;
}

}  // namespace memjit::jit::detail
