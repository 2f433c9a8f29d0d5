// The objects of one module as one byte string (internal to jit/).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memjit/error.h"

namespace memjit::jit::detail {

/// A module compiled in parts (module_parts.h) is several relocatable
/// objects; the object cache, the dumps and the module's own record keep them
/// as one `ar` archive (GNU format, no symbol table, written by LLVM's archive
/// writer), which `ar t`, `nm` and `objdump` read as they are.
[[nodiscard]] Expected<std::string> archiveObjects(const std::vector<std::string>& objects);

/// The objects in `bytes`: the members of an archive, else `bytes` itself (one
/// object). ParseError for an archive LLVM cannot read.
[[nodiscard]] Expected<std::vector<std::string_view>> objectsIn(std::string_view bytes);

/// Whether `bytes` starts as an archive does.
bool isArchive(std::string_view bytes) noexcept;

}  // namespace memjit::jit::detail
