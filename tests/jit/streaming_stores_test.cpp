// Streaming stores through memjit's pipeline: codegen tags them, the loop
// vectoriser widens them (a `!nontemporal` scalar store would keep the loop
// scalar), and the pipeline's last pass makes the vector stores `!nontemporal`
// where their alignment allows it. Checked on the optimised IR the JIT dumps
// and AOT writes, and by running the kernels.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "support/files.h"
#include "memjit/codegen/kernels.h"
#include "memjit/jit/aot.h"
#include "memjit/jit/jit.h"
#include "memjit/runtime/memref.h"

using namespace memjit;
using namespace memjit::jit;

using memjit::test::readFile;

namespace {

using Vec = runtime::StridedMemRef<float, 1>;
using Mat = runtime::StridedMemRef<float, 2>;

std::filesystem::path freshDir(const std::string& name) { return test::freshDir("jit/" + name); }

std::string afterIR(const std::filesystem::path& dir) {
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().filename().string().find("after.ll") != std::string::npos) return readFile(entry.path());
  return {};
}

// The stores of `ir` (one line each).
std::vector<std::string> stores(const std::string& ir) {
  std::vector<std::string> out;
  std::istringstream lines(ir);
  for (std::string line; std::getline(lines, line);)
    if (line.find(" store ") != std::string::npos) out.push_back(line);
  return out;
}

// A store's vector width in bytes and alignment (0, 0 for a scalar store).
std::pair<unsigned, unsigned> vectorStore(const std::string& store) {
  static const std::regex pattern(R"(store <(\d+) x (float|double)> .*, align (\d+))");
  std::smatch m;
  if (!std::regex_search(store, m, pattern)) return {0, 0};
  return {unsigned(std::stoul(m[1].str())) * (m[2] == "float" ? 4u : 8u), unsigned(std::stoul(m[3].str()))};
}

// Every `!nontemporal` vector store is aligned to its full width (what X86
// needs to stream it), and no memjit tag is left behind. With
// `everyAligned`, every vector store aligned to its width streams.
void expectStreamingStores(const std::string& ir, bool everyAligned) {
  EXPECT_EQ(ir.find("!\"memjit\""), std::string::npos) << ir;
  for (const std::string& s : stores(ir)) {
    auto [bytes, align] = vectorStore(s);
    if (bytes == 0) continue;
    const bool streams = s.find("!nontemporal") != std::string::npos;
    if (streams) {
      EXPECT_GE(align, bytes) << s;
    }
    if (everyAligned && align >= bytes) {
      EXPECT_TRUE(streams) << s;
    }
  }
}

// The widest vector store of `ir` streams.
bool widestVectorStoreStreams(const std::string& ir) {
  unsigned widest = 0;
  bool streams = false;
  for (const std::string& s : stores(ir)) {
    auto [bytes, align] = vectorStore(s);
    if (bytes > widest) widest = bytes, streams = s.find("!nontemporal") != std::string::npos;
  }
  return widest > 0 && streams;
}

TEST(StreamingStores, AddVectorisesWithNontemporalVectorStoresAndIsCorrect) {
  codegen::Module m("nt_add");
  ASSERT_FALSE(codegen::addElementwiseAdd(m, "add", {ElementType::F32, true, /*nontemporal=*/true, 64}));
  auto dir = freshDir("streaming_dumps");
  auto jit = Jit::create({.optLevel = OptLevel::O3, .dumpDirectory = dir.string()});
  ASSERT_TRUE(jit.ok()) << jit.error().str();
  auto loaded = jit->add(std::move(m));
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();

  const std::string ir = afterIR(dir);
  ASSERT_FALSE(ir.empty());
  EXPECT_TRUE(widestVectorStoreStreams(ir)) << ir;
  expectStreamingStores(ir, /*everyAligned=*/true);

  auto add = loaded->function("add");
  ASSERT_TRUE(add.ok()) << add.error().str();
  auto typed = add->as<void(Vec, Vec, Vec)>();
  ASSERT_TRUE(typed.ok()) << typed.error().str();
  for (std::int64_t n : {0, 1, 15, 16, 1000, 4099}) {  // empty, scalar tail only, vector body + tail
    const std::size_t count = static_cast<std::size_t>(n) + 16, bytes = (count * 4 + 63) / 64 * 64;
    float* a = static_cast<float*>(std::aligned_alloc(64, bytes));
    float* b = static_cast<float*>(std::aligned_alloc(64, bytes));
    float* c = static_cast<float*>(std::aligned_alloc(64, bytes));
    for (std::size_t i = 0; i < count; ++i) a[i] = float(i) * 0.5f, b[i] = 3.0f - float(i), c[i] = -7.0f;
    (*typed)(Vec{a, a, 0, {n}, {1}}, Vec{b, b, 0, {n}, {1}}, Vec{c, c, 0, {n}, {1}});
    for (std::size_t i = 0; i < count; ++i)
      ASSERT_EQ(c[i], i < std::size_t(n) ? a[i] + b[i] : -7.0f) << "n=" << n << " i=" << i;
    std::free(a), std::free(b), std::free(c);
  }
}

TEST(StreamingStores, WithoutTheTagNothingStreams) {
  codegen::Module m("plain_add");
  ASSERT_FALSE(codegen::addElementwiseAdd(m, "add", {ElementType::F32, true, /*nontemporal=*/false, 64}));
  auto dir = freshDir("plain_dumps");
  auto jit = Jit::create({.optLevel = OptLevel::O3, .dumpDirectory = dir.string()});
  ASSERT_TRUE(jit.ok());
  ASSERT_TRUE(jit->add(std::move(m)).ok());
  EXPECT_EQ(afterIR(dir).find("!nontemporal"), std::string::npos);
}

// Transposed tiles are stored at rows whose alignment nothing proves: they
// stay plain stores (X86 would not stream them) and the result is right.
TEST(StreamingStores, MisalignedVectorStoresStayPlain) {
  codegen::Module m("nt_transpose");
  ASSERT_FALSE(codegen::addTranspose(m, "transpose", {ElementType::F32, true, /*nontemporal=*/true}));
  auto dir = freshDir("transpose_dumps");
  auto jit = Jit::create({.optLevel = OptLevel::O3, .dumpDirectory = dir.string()});
  ASSERT_TRUE(jit.ok());
  auto loaded = jit->add(std::move(m));
  ASSERT_TRUE(loaded.ok()) << loaded.error().str();
  expectStreamingStores(afterIR(dir), /*everyAligned=*/false);

  auto typed = loaded->function("transpose")->as<void(Mat, Mat)>();
  ASSERT_TRUE(typed.ok());
  const std::int64_t R = 37, C = 50;
  std::vector<float> in(R * C), out(R * C, -1.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i);
  (*typed)(Mat{in.data(), in.data(), 0, {R, C}, {C, 1}}, Mat{out.data(), out.data(), 0, {C, R}, {R, 1}});
  for (std::int64_t i = 0; i < C; ++i)
    for (std::int64_t j = 0; j < R; ++j) ASSERT_EQ(out[i * R + j], in[j * C + i]) << i << "," << j;
}

// AOT emission runs the same pipeline.
TEST(StreamingStores, AheadOfTimeIRCarriesThemToo) {
  codegen::Module m("nt_aot");
  ASSERT_FALSE(codegen::addElementwiseAdd(m, "add", {ElementType::F32, true, /*nontemporal=*/true, 64}));
  auto dir = freshDir("streaming_aot");
  const std::string ll = (dir / "add.ll").string();
  ASSERT_FALSE(compileAhead(m, AotOutputs{.ir = ll}, AotOptions{.optLevel = OptLevel::O3}));
  const std::string ir = readFile(ll);
  EXPECT_TRUE(widestVectorStoreStreams(ir)) << ir;
  expectStreamingStores(ir, /*everyAligned=*/true);
}

// At O0 nothing vectorises; the tag is still resolved (no tag survives, and
// the stores stream where the target streams scalars).
TEST(StreamingStores, O0ResolvesTheTag) {
  codegen::Module m("nt_o0");
  ASSERT_FALSE(codegen::addElementwiseAdd(m, "add", {ElementType::F32, true, /*nontemporal=*/true, 64}));
  auto dir = freshDir("streaming_o0");
  const std::string ll = (dir / "add.ll").string();
  ASSERT_FALSE(compileAhead(m, AotOutputs{.ir = ll}, AotOptions{.optLevel = OptLevel::O0}));
  const std::string ir = readFile(ll);
  EXPECT_EQ(ir.find("!\"memjit\""), std::string::npos) << ir;
  EXPECT_EQ(ir.find("store <"), std::string::npos) << ir;
}

}  // namespace
