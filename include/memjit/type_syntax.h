// MLIR 19 type syntax: parse and print element, memref and function types.
//
// Printing gives MLIR's canonical spelling; parsing accepts the canonical
// spelling and the other valid ones MLIR accepts (extra spaces, `strided<[1]>`
// with an explicit `offset: 0`, single results in parentheses, ...). Errors
// carry the byte offset and say what was expected there.
#pragma once

#include <string>
#include <string_view>

#include "memjit/error.h"
#include "memjit/types.h"
#include "memjit/vector_type.h"

namespace memjit {

Expected<ElementType> parseElementType(std::string_view text);
/// A scalar, ranked or unranked memref type.
Expected<Type> parseType(std::string_view text);
Expected<FunctionType> parseFunctionType(std::string_view text);
/// `vector<16xf32>`. MLIR's multi-dimensional (`vector<4x16xf32>`), 0-d
/// (`vector<f32>`) and scalable (`vector<[4]xf32>`) forms are refused with
/// an error saying so: memjit's vectors have one fixed dimension.
Expected<VectorType> parseVectorType(std::string_view text);

std::string toString(ElementType t);
std::string toString(const MemRefType& t);
std::string toString(const UnrankedMemRefType& t);
std::string toString(const Type& t);
std::string toString(const FunctionType& t);
std::string toString(const VectorType& t);

}  // namespace memjit
