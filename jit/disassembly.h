// LoadedModule::assembly: one function of an object file as text, decoded by
// LLVM's MC disassembler. Internal to jit/.
#pragma once

#include <string>
#include <string_view>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// The instructions of function `symbol` in the relocatable `object` (for
/// the host), one a line with its offset in the function; calls and other
/// references the linker resolved are annotated with the symbol they name,
/// and with the object's DWARF line table (debug info) each run of
/// instructions from one source line is preceded by that line. `loadedAt` is
/// where the function is in memory (shown in the first line). NotFound when
/// the object defines no function `symbol`.
[[nodiscard]] Expected<std::string> disassembleFunction(std::string_view object, std::string_view symbol,
                                                        const void* loadedAt);

}  // namespace memjit::jit::detail
