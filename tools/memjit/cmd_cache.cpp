// memjit cache stats|list|prune|clear <directory | redis://host:port[/prefix]>
//   stats:  entries, bytes, least and most recently used, and the time of a read
//   list:   one line per entry (key, bytes, idle seconds, TTL), --verify checks each
//   prune:  --max-bytes N[K|M|G]: removes the least recently used entries past N
//   clear:  removes every entry (a Redis server: only this prefix's keys)
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

#include "command.h"
#include "memjit/jit/cache_backend.h"

namespace memjit::cli {
namespace {

constexpr const char* kUsage =
    "memjit cache stats|list [--verify]|prune --max-bytes N[K|M|G]|clear <directory | redis://host:port[/prefix]>";

Expected<std::uint64_t> parseBytes(const std::string& text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const std::size_t used = error == std::errc() ? static_cast<std::size_t>(end - text.data()) : 0;
  const std::string suffix = text.substr(used);
  const std::uint64_t scale = suffix == "" ? 1 : suffix == "K" ? 1u << 10 : suffix == "M" ? 1u << 20
                              : suffix == "G" ? 1u << 30 : 0;
  if (used == 0 || scale == 0)
    return Error(ErrorCode::ParseError, "--max-bytes '" + text + "' is not a size (a number, optionally K, M or G)");
  return value * scale;
}

int stats(jit::CacheBackend& backend) {
  auto entries = backend.list(false);
  if (!entries) return fail("cache", entries.error());
  std::uint64_t bytes = 0;
  std::chrono::seconds newest = std::chrono::seconds::max(), oldest{0};
  for (const auto& entry : *entries) {
    bytes += entry.bytes;
    newest = std::min(newest, entry.idle);
    oldest = std::max(oldest, entry.idle);
  }
  std::cout << "location: " << backend.location() << "\nentries: " << entries->size() << "\nbytes: " << bytes << "\n";
  if (entries->empty()) return 0;
  std::cout << "least recently used: " << oldest.count() << " s ago\nmost recently used: " << newest.count()
            << " s ago\n";
  // The time one read takes from here: the figure a cache hit pays.
  std::vector<double> times;
  for (std::size_t i = 0; i < std::min<std::size_t>(entries->size(), 21); ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto got = backend.get((*entries)[i].key);
    if (!got) return fail("cache", got.error());
    times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  std::cout << "read time (median of " << times.size() << "): " << static_cast<long>(times[times.size() / 2])
            << " us\n";
  return 0;
}

int list(jit::CacheBackend& backend, bool verify) {
  auto entries = backend.list(verify);
  if (!entries) return fail("cache", entries.error());
  std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.idle < b.idle; });
  int damaged = 0;
  for (const auto& entry : *entries) {
    std::cout << entry.key << "  " << entry.bytes << " bytes  idle " << entry.idle.count() << " s";
    if (entry.expiresIn) std::cout << "  expires in " << entry.expiresIn->count() << " s";
    if (entry.valid) std::cout << (*entry.valid ? "  ok" : "  DAMAGED");
    damaged += entry.valid == false;
    std::cout << "\n";
  }
  if (damaged) return fail("cache", Error(ErrorCode::IoError, std::to_string(damaged) + " damaged entries in " +
                                                                  backend.location()));
  return 0;
}

int cacheCommand(const Args& args) {
  if (args.size() < 2) return usageError("cache", std::string("expects ") + kUsage);
  const std::string& verb = args[0];
  const std::string& location = args.back();
  auto backend = jit::openCacheLocation(location);
  if (!backend) return fail("cache", backend.error());
  if (verb == "stats" && args.size() == 2) return stats(**backend);
  if (verb == "list" && (args.size() == 2 || (args.size() == 3 && args[1] == "--verify")))
    return list(**backend, args.size() == 3);
  if (verb == "clear" && args.size() == 2) {
    if (Error error = (*backend)->clear()) return fail("cache", error);
    std::cout << "cleared " << (*backend)->location() << "\n";
    return 0;
  }
  if (verb == "prune" && args.size() == 4 && args[1] == "--max-bytes") {
    auto limit = parseBytes(args[2]);
    if (!limit) return fail("cache", limit.error());
    auto pruned = (*backend)->prune(*limit);
    if (!pruned) return fail("cache", pruned.error());
    std::cout << "removed " << pruned->removedEntries << " entries (" << pruned->removedBytes << " bytes) and "
              << pruned->removedOrphans << " orphaned temporary files; " << pruned->remainingBytes
              << " bytes remain\n";
    return 0;
  }
  return usageError("cache", std::string("expects ") + kUsage);
}

const Registrar cacheRegistrar({"cache", kUsage,
                                "inspect and bound a compiled-object cache: a directory or a Redis server",
                                cacheCommand});

}  // namespace
}  // namespace memjit::cli
