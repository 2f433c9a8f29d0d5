// Internal: the LLVM API calls that differ between the LLVM versions memjit
// builds with (19 to 22; 19 and 22 are tested). Everything version-dependent
// lives here, so the rest of the code calls one spelling.
//
// Each function asks the compiler which overload this LLVM has (a
// requires-expression on a template parameter) instead of comparing
// LLVM_VERSION_MAJOR, so it is right for the untested 20 and 21 too.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ExecutionEngine/JITLink/JITLink.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/OptBisect.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/TargetParser/Triple.h>

namespace memjit::llvm_compat {

/// An OptPassGate answering through `allows`: OptPassGate::shouldRunPass is
/// non-const in LLVM 19 and const in 22; whichever this LLVM declares
/// virtual, the matching one below overrides it (hence no `override`).
class PassGate : public llvm::OptPassGate {
 public:
  virtual bool allows(llvm::StringRef pass, llvm::StringRef description) const = 0;
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef description) const { return allows(pass, description); }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef description) { return allows(pass, description); }
  bool isEnabled() const { return true; }
};

/// LLVM 22's loop vectoriser builds an invalid NaN check for a loop carrying
/// minnum/maxnum reductions of two float types (llvm-project PR #161735), and
/// the x86 back end aborts on it: minmax_reductions.h keeps such loops scalar.
inline constexpr bool kVectorizerMixesMinMaxReductionTypes = LLVM_VERSION_MAJOR >= 22;

/// LLVM 19's SLP vectoriser mis-packs stores of a sext beside a `zext nneg`
/// with a reused lane (a shuffle index into its poison operand); 22's does
/// not: slp_extensions.h hands it sexts only.
inline constexpr bool kSlpMisPacksMixedExtensions = LLVM_VERSION_MAJOR < 22;

/// The target for `triple`, or null with `error` set. LLVM 21 added the
/// Triple overload; 22 deprecates the string one.
template <class Registry = llvm::TargetRegistry>
const llvm::Target* lookupTarget(const std::string& triple, std::string& error) {
  if constexpr (requires(const llvm::Triple& t) { Registry::lookupTarget(t, error); })
    return Registry::lookupTarget(llvm::Triple(triple), error);
  else
    return Registry::lookupTarget(triple, error);
}

/// A target machine for `triple`. LLVM 21 takes the triple as llvm::Triple.
template <class Target = llvm::Target>
llvm::TargetMachine* createTargetMachine(const Target& target, const std::string& triple, llvm::StringRef cpu,
                                         llvm::StringRef features, const llvm::TargetOptions& options,
                                         std::optional<llvm::Reloc::Model> relocation,
                                         llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Default) {
  if constexpr (requires(const llvm::Triple& t) {
                  target.createTargetMachine(t, cpu, features, options, relocation, std::nullopt, level);
                })
    return target.createTargetMachine(llvm::Triple(triple), cpu, features, options, relocation, std::nullopt,
                                      level);
  else
    return target.createTargetMachine(triple, cpu, features, options, relocation, std::nullopt, level);
}

/// The MC layer's objects for a triple: LLVM 21 added the llvm::Triple
/// overloads, 22 deprecates the string ones.
template <class Target = llvm::Target>
llvm::MCRegisterInfo* createMCRegInfo(const Target& target, const llvm::Triple& triple) {
  if constexpr (requires { target.createMCRegInfo(triple); })
    return target.createMCRegInfo(triple);
  else
    return target.createMCRegInfo(triple.str());
}
template <class Target = llvm::Target>
llvm::MCAsmInfo* createMCAsmInfo(const Target& target, const llvm::MCRegisterInfo& registers,
                                 const llvm::Triple& triple, const llvm::MCTargetOptions& options) {
  if constexpr (requires { target.createMCAsmInfo(registers, triple, options); })
    return target.createMCAsmInfo(registers, triple, options);
  else
    return target.createMCAsmInfo(registers, triple.str(), options);
}
template <class Target = llvm::Target>
llvm::MCSubtargetInfo* createMCSubtargetInfo(const Target& target, const llvm::Triple& triple, llvm::StringRef cpu,
                                             llvm::StringRef features) {
  if constexpr (requires { target.createMCSubtargetInfo(triple, cpu, features); })
    return target.createMCSubtargetInfo(triple, cpu, features);
  else
    return target.createMCSubtargetInfo(triple.str(), cpu, features);
}

/// Sets the module's triple. LLVM 21's Module stores an llvm::Triple.
template <class Module = llvm::Module>
void setTargetTriple(Module& module, const llvm::Triple& triple) {
  if constexpr (requires { module.setTargetTriple(triple); })
    module.setTargetTriple(triple);
  else
    module.setTargetTriple(triple.str());
}

/// A vectorisable-function entry with the C calling convention (LLVM 22's
/// VecDesc also names the vector function's calling convention).
template <class Desc = llvm::VecDesc>
Desc vectorFunction(llvm::StringRef scalar, llvm::StringRef vector, llvm::ElementCount lanes, bool masked,
                    llvm::StringRef abiPrefix) {
  if constexpr (requires { Desc(scalar, vector, lanes, masked, abiPrefix, std::nullopt); })
    return Desc(scalar, vector, lanes, masked, abiPrefix, std::nullopt);
  else
    return Desc(scalar, vector, lanes, masked, abiPrefix);
}

/// A SCEVExpander naming its values `name`: LLVM 21 dropped the DataLayout parameter.
template <class Expander = llvm::SCEVExpander>
Expander scevExpander(llvm::ScalarEvolution& se, const llvm::DataLayout& layout, const char* name) {
  if constexpr (requires { Expander(se, layout, name); })
    return Expander(se, layout, name);
  else
    return Expander(se, name);
}

/// A JITLink symbol's name: LLVM 20 interns it (SymbolStringPtr), 19 has a StringRef.
template <class Symbol = llvm::jitlink::Symbol>
llvm::StringRef symbolName(const Symbol& symbol) {
  if constexpr (requires { *symbol.getName(); })
    return *symbol.getName();
  else
    return symbol.getName();
}

/// What to do about textual IR that this LLVM's parser refused with
/// `message` because it uses a constant expression LLVM has removed (`mul` in
/// LLVM 21, which MLIR 19 writes for constant sizes; `icmp`, `shl` in 19);
/// nullopt for any other message. An older LLVM's bitcode of the same
/// IR still loads: the bitcode reader turns such constants into instructions.
inline std::optional<std::string> removedConstantExpressionHint(std::string_view message) {
  constexpr std::string_view suffix = " constexprs are no longer supported";
  if (message.size() <= suffix.size() || !message.ends_with(suffix)) return std::nullopt;
  const std::string op(message.substr(0, message.size() - suffix.size()));
  const std::string llvm = "LLVM " + std::to_string(LLVM_VERSION_MAJOR);
  return "this textual IR uses a constant-expression `" + op + "`, which " + llvm +
         "'s IR parser (memjit's) no longer accepts: it was written by an older LLVM or MLIR (MLIR 19, for one, "
         "writes `mul` constant expressions for constant sizes). Convert it to bitcode with that LLVM's "
         "llvm-as (e.g. `llvm-as-19 file.ll -o file.bc`) and pass the .bc, which " + llvm +
         " reads, or use a memjit built with the older LLVM";
}

}  // namespace memjit::llvm_compat
