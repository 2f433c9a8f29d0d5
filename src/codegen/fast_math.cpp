#include "memjit/codegen/fast_math.h"

#include <array>
#include <utility>

namespace memjit::codegen {
namespace {

// MLIR's order (FastMathFlags in ArithBase.td).
constexpr std::array<std::pair<FastMath, std::string_view>, 7> kFlagNames{{
    {FastMath::Reassoc, "reassoc"},
    {FastMath::NoNaNs, "nnan"},
    {FastMath::NoInfs, "ninf"},
    {FastMath::NoSignedZeros, "nsz"},
    {FastMath::AllowReciprocal, "arcp"},
    {FastMath::AllowContract, "contract"},
    {FastMath::ApproxFunc, "afn"},
}};

}  // namespace

std::string toString(FastMath flags) {
  if (flags == FastMath::None) return "none";
  if (flags == FastMath::Fast) return "fast";
  std::string s;
  for (const auto& [flag, name] : kFlagNames) {
    if (!has(flags, flag)) continue;
    if (!s.empty()) s += ',';
    s += name;
  }
  return s;
}

Expected<FastMath> parseFastMath(std::string_view text) {
  FastMath flags = FastMath::None;
  std::size_t pos = 0;
  while (true) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && text[pos] != ',') ++pos;
    std::string_view word = text.substr(start, pos - start);
    while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
    if (word == "fast") {
      flags = flags | FastMath::Fast;
    } else if (word != "none") {
      bool known = false;
      for (const auto& [flag, name] : kFlagNames)
        if (word == name) {
          flags = flags | flag;
          known = true;
        }
      if (!known)
        return Error(ErrorCode::ParseError,
                     "unknown fast-math flag '" + std::string(word) + "' at offset " + std::to_string(start) +
                         " in '" + std::string(text) +
                         "' (expected none, reassoc, nnan, ninf, nsz, arcp, contract, afn or fast)",
                     start);
    }
    if (pos >= text.size()) break;
    ++pos;  // the comma
  }
  return flags;
}

}  // namespace memjit::codegen
