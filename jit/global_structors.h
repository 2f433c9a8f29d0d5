// A module's static constructors and destructors (llvm.global_ctors and
// llvm.global_dtors), turned into two plain functions the caller runs when it
// chooses. Internal to jit/.
//
// memjit links finished objects into ORC with no platform runtime, so an
// object's .init_array would never run; and a test harness or `memjit run`
// wants the constructors right before the entry, the destructors right after
// it (as mlir-cpu-runner does), not at dlopen/exit time.
#pragma once

#include <string_view>

namespace llvm {
class Module;
}

namespace memjit::jit::detail {

/// The functions lowerGlobalStructors defines: each calls the module's
/// constructors (ascending priority) or destructors (descending priority).
inline constexpr std::string_view kGlobalConstructorsSymbol = "__memjit_global_ctors";
inline constexpr std::string_view kGlobalDestructorsSymbol = "__memjit_global_dtors";

/// Replaces llvm.global_ctors / llvm.global_dtors by the two functions above
/// (each defined only when the module has entries). Ties keep the array's
/// order, as LangRef leaves it open and LLVM's own lowering keeps it.
void lowerGlobalStructors(llvm::Module& module);

}  // namespace memjit::jit::detail
