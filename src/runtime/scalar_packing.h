// Internal: the dynamic invoker's scalar conversions. A scalar Variant goes into
// a parameter word only when the parameter's type holds it exactly (an
// out-of-range integer, an inexact float, a float for an integer are errors
// naming the argument); a scalar result is read back as a Variant.
#pragma once

#include <cstdint>
#include <string>

#include "memjit/runtime/variant.h"
#include "plan.h"

namespace memjit::runtime::detail {

/// The TypeMismatch error for raw input `r` of parameter `p`: "<path> (raw #r):
/// expected <type>, received <what><extra>".
Error mismatch(const RawParam& p, std::size_t r, const std::string& received, const std::string& extra = "");

/// Converts scalar `v` to `p`'s type, into the low bytes of `word`.
Error packScalar(const RawParam& p, std::size_t r, const Variant& v, std::uint64_t& word);

/// Reads a scalar of type `t` stored at `p`.
Variant readScalar(ElementType t, const void* p);

}  // namespace memjit::runtime::detail
