#include "memjit/runtime/result_allocator.h"

#include "memjit/type_syntax.h"

namespace memjit::runtime {

std::string defaultAllocatorName(std::string_view function) {
  std::string s(function);
  s += kAllocatorSuffix;
  return s;
}

std::size_t numDestinations(const FunctionType& t) noexcept {
  std::size_t k = 0;
  for (const auto& r : t.results) k += isRankedMemRef(r) ? 1 : 0;
  return k;
}

FunctionType withDestinations(const FunctionType& userType) {
  FunctionType t = userType;
  for (const auto& r : userType.results)
    if (isRankedMemRef(r)) t.inputs.push_back(r);
  return t;
}

Expected<FunctionType> userFacingType(const FunctionType& full) {
  std::size_t k = numDestinations(full);
  if (full.inputs.size() < k)
    return Error(ErrorCode::InvalidArgument,
                 "result allocation: " + toString(full) + " has " + std::to_string(k) +
                     " memref results but only " + std::to_string(full.inputs.size()) +
                     " inputs, so it cannot take destination arguments");
  FunctionType user;
  user.results = full.results;
  user.inputs.assign(full.inputs.begin(), full.inputs.end() - static_cast<std::ptrdiff_t>(k));
  std::size_t j = user.inputs.size();
  for (const auto& r : full.results) {
    if (!isRankedMemRef(r)) continue;
    if (!(full.inputs[j] == r))
      return Error(ErrorCode::InvalidArgument,
                   "result allocation: input " + std::to_string(j) + " of " + toString(full) + " is " +
                       toString(full.inputs[j]) + " but the destination for result " + toString(r) +
                       " must have the result's type");
    ++j;
  }
  return user;
}

Expected<FunctionType> allocatorType(const FunctionType& full) {
  MEMJIT_ASSIGN_OR_RETURN(FunctionType user, userFacingType(full));
  FunctionType a;
  for (const auto& in : user.inputs)
    if (const auto* m = std::get_if<MemRefType>(&in))
      for (std::size_t i = 0; i < m->numDynamicDims(); ++i) a.inputs.push_back(ElementType::Index);
  for (const auto& r : full.results)
    if (isRankedMemRef(r)) a.results.push_back(r);
  return a;
}

}  // namespace memjit::runtime
