// Internal: one dynamic call (Callable::invoke), in the order it happens:
// bind the caller's values to the raw inputs through the argument structure,
// pack each into a parameter word (checking it against the signature, copying
// a buffer whose layout does not fit), add result destinations, call, copy
// back into the caller's buffers. Unpacking the results is results.h's part.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "memjit/runtime/buffer.h"
#include "memjit/runtime/callable.h"
#include "memjit/runtime/memref.h"
#include "memjit/runtime/variant.h"
#include "plan.h"
#include "results.h"
#include "scratch_array.h"

namespace memjit::runtime::detail {

class Invocation {
 public:
  // How much of each per-call array lives inline. A parameter word holds a
  // scalar or a pointer to a descriptor, so a call takes one word per raw
  // input plus one for the result block: calls of up to 16 inputs (every
  // kernel of the benchmarks and examples) allocate nothing of their own.
  static constexpr std::size_t kInlineWords = 24;
  static constexpr std::size_t kInlineInputs = 16;
  static constexpr std::size_t kInlineUnranked = 4;
  static constexpr std::size_t kInlineResultBytes = 256;

  Invocation(const Plan& plan, const InvokeOptions& options);

  /// Binds positional and keyword arguments to the raw inputs.
  Error bind(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs);
  /// Packs every bound value into its parameter word.
  Error packInputs();
  /// Adds the destinations of a destination-passing function (result_allocator.h).
  Error packDestinations();
  /// Calls the function (checked mode's record cleared first, runtime/checks.h).
  void call();
  /// Copies what the callee wrote into copies back into the caller's buffers.
  Error copyBack();

  /// What the call left for unpackResults (results.h).
  Returned returned() const noexcept { return {ret_, result_, {passed_.data(), numPassed_}}; }

 private:
  Error bindNode(const Node& n, const Variant& v, const std::string& path);
  Error bindRoot(std::span<const Variant> args, std::span<const std::pair<std::string, Variant>> kwargs);
  Expected<const Buffer*> listToBuffer(const RawParam& p, std::size_t r, const Variant& v);
  Expected<const Buffer*> prepareBuffer(const RawParam& p, std::size_t r, const Buffer& b);
  Buffer* keep(Buffer b);
  void pass(const Buffer* b) noexcept { passed_[numPassed_++] = b; }

  const Plan& plan_;
  const InvokeOptions& options_;
  std::size_t base_ = 0;  ///< word index of the first input (1 when results come via a pointer)
  ScratchArray<std::uint64_t, kInlineWords> words_;
  ScratchArray<const Variant*, kInlineInputs> leaves_;  ///< the value bound to each raw input
  ScratchArray<const Buffer*, kInlineInputs> inputBuffers_;  ///< per raw input; null for scalars
  ScratchArray<const Buffer*, kInlineInputs> passed_;
  std::size_t numPassed_ = 0;
  ScratchArray<UnrankedMemRef<void>, kInlineUnranked> unranked_;
  std::size_t numUnranked_ = 0;
  // Keep-alive for views, copies and destinations; boxed so that pointers to
  // them stay valid, and empty (no allocation) on the fast path.
  std::vector<std::unique_ptr<Buffer>> temps_;
  std::vector<std::pair<const Buffer*, const Buffer*>> copyBacks_;  ///< (user buffer, its copy)
  ScratchArray<std::uint64_t, kInlineResultBytes / 8> resultStorage_;
  unsigned char* result_ = nullptr;
  std::uint64_t ret_ = 0;
};

}  // namespace memjit::runtime::detail
