// Internal: taking a defined function back out of its codegen module, for a
// FunctionBuilder that failed or was destroyed unfinished, so that the
// module's other functions still compile.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "memjit/codegen/module.h"

namespace llvm {
class Function;
}

namespace memjit::codegen::detail {

/// Removes `name` (declared with defineFunction) from `module`: its body, its
/// C interface, its metadata globals and manifest entry, its registry entry,
/// the `helpers` made for it (outlined parallel bodies), and every private
/// global or declaration that only these used. When other functions still
/// call `name` (or its C interface) that symbol stays as a bare declaration,
/// and the names of those callers are returned (sorted), so the caller can
/// say why a later link will miss it.
std::vector<std::string> removeFunction(Module& module, std::string_view name,
                                        const std::vector<llvm::Function*>& helpers);

/// Drops the metadata globals of `name` and its entry in the signatures and
/// the manifest (metadata.cpp: it owns the manifest's layout).
void removeFunctionMetadata(Module& module, std::string_view name);

}  // namespace memjit::codegen::detail
