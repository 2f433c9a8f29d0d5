// What a printed regression test (toBuilderSnippet) calls: builds the
// function with the snippet's builder code, runs it at O0..O3, at O2 in
// checked mode and ahead of time (O2) through the typed invoker on the recorded initial state, and
// checks the values the reference interpreter computed.
#pragma once

#include <cmath>  // INFINITY, in printed constants
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "memjit/codegen/builder.h"
#include "memjit/type_syntax.h"  // parseFunctionType, for printed helpers
#include "program.h"

namespace memjit::difftest {

struct Expectations {
  std::vector<std::pair<int, std::uint64_t>> outputs;  // io slot (after the inputs), i64 bits
  bool hasRet = false;
  std::uint64_t ret = 0;
  std::vector<std::pair<std::size_t, std::uint64_t>> fm, im;  // buffer element, bits
};

/// Defines the functions a program calls, in its module, with the options the calling function is built with
/// (checked in the O2-checked run, as the tool builds every function of a program there).
using Helpers = std::function<Error(codegen::Module&, const codegen::FunctionOptions&)>;

/// "" when every level gives the expected values, else what differed. `helpers` defines the functions
/// `build` calls, in the same module, first.
std::string checkRegression(const Program& state, const std::function<void(codegen::FunctionBuilder&)>& build,
                            const Expectations& expected, const Helpers& helpers = {});

}  // namespace memjit::difftest
