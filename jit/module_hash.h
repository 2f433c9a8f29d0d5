// A structural digest of an LLVM module for the object cache key (internal
// to jit/). Writing bitcode to hash it was most of a warm cache hit (~300K
// instructions for a small kernel); walking the IR and hashing what it holds
// is a fraction of that.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include <llvm/IR/Module.h>

namespace memjit::jit::detail {

/// BLAKE3 over everything in `module` that can change its object code:
/// identifier, source name, triple, data layout, inline asm, named metadata,
/// and for every global its name, linkage, visibility, attributes, alignment,
/// section, metadata, type and initialiser or body (each instruction's
/// opcode, type, flags, operands and per-kind fields such as predicates,
/// alignments, orderings, masks and indices). Not local value names, which
/// never reach the object. nullopt when the module holds anything the walk
/// does not fully cover (debug info, comdats, aliases, personality
/// functions, invokes, inline asm operands, operand bundles, ...): the caller
/// then hashes bitcode, so the key stays complete either way. Safe on IR the
/// verifier would reject (it only reads; what it cannot follow is nullopt),
/// so it may run before verification.
std::optional<std::array<std::uint8_t, 32>> structuralDigest(const llvm::Module& module);

}  // namespace memjit::jit::detail
