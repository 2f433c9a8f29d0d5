// Fuzzes the generic SignatureParser: it must terminate, stay in bounds, point
// errors into the input, and whatever parses must rebuild (with
// SignatureBuilder) into text that parses to the same components; nested
// spans are parsed recursively up to a fixed depth.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "memjit/signature/mangling.h"

using namespace memjit::signature;

namespace {

// A span's bytes are a view into the text being read (the input, or the
// builder's encoding while it is compared): no copy per component.
struct Item {
  char tag;
  std::int64_t value;
  std::string_view bytes;
  bool operator==(const Item&) const = default;
};

// Reads all components; false on a parse error (after checking its offset).
bool readAll(std::string_view text, std::size_t base, std::vector<Item>& out, unsigned bits) {
  SignatureParser p(text, base, bits);
  std::size_t steps = 0;
  for (; !p.atEnd(); p.next()) {
    if (p.failed()) {
      if (!p.error().offset() || *p.error().offset() > base + text.size() || *p.error().offset() < base) std::abort();
      return false;
    }
    if (++steps > text.size()) std::abort();  // every component consumes bytes
    if (p.offset() < base || p.offset() >= base + text.size()) std::abort();
    if (p.kind() == Component::Span) {
      if (!isSpanTag(p.tag()) || static_cast<std::size_t>(p.value()) != p.bytes().size()) std::abort();
      if (p.bytes().data() < text.data() || p.bytes().data() + p.bytes().size() > text.data() + text.size())
        std::abort();
    } else if (!isIntegerTag(p.tag())) {
      std::abort();
    }
    out.push_back({p.tag(), p.value(), p.bytes()});
  }
  return true;
}

void check(std::string_view text, unsigned bits, int depth) {
  std::vector<Item> items;
  if (!readAll(text, 0, items, bits)) return;
  SignatureBuilder b;
  for (const Item& it : items) {
    if (isSpanTag(it.tag))
      b.span(it.bytes, it.tag);
    else
      b.integer(it.value, it.tag);
  }
  if (!b.ok()) std::abort();
  std::vector<Item> again;
  if (!readAll(b.encoded(), 0, again, bits) || again != items) std::abort();
  auto canon = canonicalize(text, bits);
  if (!canon || *canon != b.encoded()) std::abort();
  if (depth < 8)
    for (const Item& it : items)
      if (isSpanTag(it.tag)) check(it.bytes, bits, depth + 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, 64, 0);
  check(text, 32, 0);
  return 0;
}
