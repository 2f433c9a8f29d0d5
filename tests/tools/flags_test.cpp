// The flag tables of the memjit CLI (tools/memjit/flags.h): spellings, value
// forms, hooks for positional and unknown arguments, and help formatting.
#include "flags.h"

#include <gtest/gtest.h>

#include "support/expect_error.h"

namespace memjit::cli {
namespace {

struct Options {
  std::vector<std::string> seen;  ///< "name=value" per applied flag, in order
  std::vector<std::string> positional;
  std::vector<std::string> unknown;
};

Error record(Options& o, std::string_view name, std::string value) {
  if (value == "bad") return Error(ErrorCode::InvalidArgument, "bad value for " + std::string(name));
  o.seen.push_back(std::string(name) + "=" + value);
  return Error::success();
}

const std::vector<Flag<Options>> kTable{
    {{"e"}, FlagValue::Required, "ENTRY", "the entry", record},
    {{"out", "output"}, FlagValue::Required, "PATH", "where\nit goes", record},
    {{"quiet"}, FlagValue::None, "", "", record},
    {{"benchmark"}, FlagValue::Optional, "N", "time it", record},
    {{"O0", "O3"}, FlagValue::None, "", "level", record},
};

Expected<Options> parse(const Args& args) {
  Options o;
  auto positional = [](Options& options, const std::string& a) -> Error {
    if (a == "stop") return Error(ErrorCode::InvalidArgument, "stopped at " + a);
    options.positional.push_back(a);
    return Error::success();
  };
  auto unknown = [](Options& options, const std::string& a) -> Error {
    options.unknown.push_back(a);
    return Error::success();
  };
  MEMJIT_TRY(parseFlags<Options>(kTable, args, o, positional, unknown));
  return o;
}

TEST(Flags, EverySpellingAndValueForm) {
  auto o = parse({"-e", "f", "--e=g", "-e=h", "--out", "a", "-output=b", "--quiet", "-benchmark", "--benchmark=3",
                  "-O3", "file", "-", "--frob=1", "-x"});
  ASSERT_TRUE(o.ok()) << o.error().str();
  EXPECT_EQ(o->seen, (std::vector<std::string>{"e=f", "e=g", "e=h", "out=a", "output=b", "quiet=", "benchmark=",
                                               "benchmark=3", "O3="}));
  EXPECT_EQ(o->positional, (std::vector<std::string>{"file", "-"}));
  EXPECT_EQ(o->unknown, (std::vector<std::string>{"--frob=1", "-x"}));
}

TEST(Flags, ARequiredValueIsTheNextArgumentEvenWhenItLooksLikeAFlag) {
  auto o = parse({"--e", "-3", "--out=", "--benchmark", "x"});
  ASSERT_TRUE(o.ok()) << o.error().str();
  EXPECT_EQ(o->seen, (std::vector<std::string>{"e=-3", "out=", "benchmark="}));
  EXPECT_EQ(o->positional, (std::vector<std::string>{"x"}));  // an optional value is never the next argument
}

TEST(Flags, Errors) {
  using test::expectError;
  expectError(parse({"f", "--e"}).error(), ErrorCode::InvalidArgument, {"--e needs a value"});
  expectError(parse({"-quiet=1"}).error(), ErrorCode::InvalidArgument, {"-quiet takes no value, got '-quiet=1'"});
  expectError(parse({"-e", "bad", "-e", "f"}).error(), ErrorCode::InvalidArgument, {"bad value for e"});
  expectError(parse({"stop", "-e"}).error(), ErrorCode::InvalidArgument, {"stopped at stop"});
}

TEST(Flags, SplitFlag) {
  EXPECT_FALSE(splitFlag("file.ll"));
  EXPECT_FALSE(splitFlag("-"));
  EXPECT_FALSE(splitFlag(""));
  auto f = splitFlag("--arg=x=1");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->name, "arg");
  EXPECT_EQ(f->inlineValue, "x=1");
  EXPECT_EQ(splitFlag("-O3")->name, "O3");
  EXPECT_FALSE(splitFlag("-O3")->inlineValue);
}

TEST(Flags, SplitCommaList) {
  EXPECT_EQ(splitCommaList("a.so,,b.so,"), (std::vector<std::string>{"a.so", "b.so"}));
  EXPECT_EQ(splitCommaList(""), std::vector<std::string>{});
}

TEST(Flags, HelpIsTheTable) {
  EXPECT_EQ(flagHelp(kTable),
            "  -e ENTRY                  the entry\n"
            "  --out, --output PATH      where\n"
            "                            it goes\n"
            "  --quiet                   \n"
            "  --benchmark[=N]           time it\n"
            "  -O0, -O3                  level\n");
  // A long left part puts the help on the next line.
  EXPECT_EQ(formatFlagHelp({"a-very-long-flag-name"}, FlagValue::Required, "VALUE", "x"),
            "  --a-very-long-flag-name VALUE\n"
            "                            x\n");
}

}  // namespace
}  // namespace memjit::cli
