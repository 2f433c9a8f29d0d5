#include "flags.h"

namespace memjit::cli {
namespace {

constexpr std::size_t kHelpColumn = 28;  // where the help text starts

std::string spelling(std::string_view name) { return (name.size() <= 2 ? "-" : "--") + std::string(name); }

}  // namespace

std::optional<SplitFlag> splitFlag(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return std::nullopt;
  std::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
  SplitFlag flag;
  if (auto eq = body.find('='); eq != std::string_view::npos) {
    flag.inlineValue = std::string(body.substr(eq + 1));
    body = body.substr(0, eq);
  }
  flag.name = std::string(body);
  return flag;
}

std::vector<std::string> splitCommaList(std::string_view list) {
  std::vector<std::string> items;
  for (std::size_t start = 0; start <= list.size();) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) items.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return items;
}

std::string formatFlagHelp(const std::vector<std::string_view>& names, FlagValue value, std::string_view placeholder,
                           std::string_view help) {
  std::string left = "  ";
  for (std::size_t i = 0; i < names.size(); ++i) left += (i ? ", " : "") + spelling(names[i]);
  if (value == FlagValue::Required) left += " " + std::string(placeholder);
  if (value == FlagValue::Optional) left += "[=" + std::string(placeholder) + "]";
  std::string text = left;
  const std::string indent(kHelpColumn, ' ');
  if (left.size() + 2 > kHelpColumn) text += "\n" + indent;
  else text += std::string(kHelpColumn - left.size(), ' ');
  for (std::size_t start = 0; start <= help.size();) {
    std::size_t end = std::min(help.find('\n', start), help.size());
    if (start > 0) text += indent;
    text += std::string(help.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return text;
}

}  // namespace memjit::cli
