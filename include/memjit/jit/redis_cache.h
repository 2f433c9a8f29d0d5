// The shared cache backend: a Redis server (through hiredis) that every
// process of a fleet reads and fills, so a kernel compiled once on any machine
// is loaded everywhere else (docs/fleet-cache.md).
//
// Each entry is one Redis string `<prefix><key>` written by one SET (header,
// checksum and object together), so no reader sees half of it. Every call has a
// deadline: a server that is down, unreachable or slower than `timeout` makes
// the call fail (ObjectCache then compiles locally), and for `retryAfter` the
// backend fails at once instead of waiting again. The Redis subsystem can be
// compiled out (CMake option MEMJIT_REDIS, ON when hiredis is found); createRedisCache()
// then reports Unsupported.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "memjit/jit/cache_backend.h"

namespace memjit::jit {

struct RedisCacheOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  /// Prepended to every key, so a server can hold several caches (and `clear`
  /// removes only this one's).
  std::string prefix = "memjit:";
  /// The bound on one call: connecting, and each command's reply.
  std::chrono::milliseconds timeout{100};
  /// After a failure, calls fail at once for this long before trying again.
  std::chrono::milliseconds retryAfter{2000};
  /// Entries expire this long after they were last read or written (a hit
  /// renews it); 0: never (then the server's maxmemory policy bounds the size).
  std::chrono::seconds ttl{0};
};

/// Whether this memjit was built with the Redis backend.
bool redisCacheAvailable() noexcept;

/// Options from "redis://host[:port][/prefix][?ttl=SECONDS&timeout=MS]";
/// ParseError naming the offending part otherwise.
[[nodiscard]] Expected<RedisCacheOptions> parseRedisUrl(const std::string& url);

/// A backend talking to the server `options` names. It connects on first use,
/// so a process starts (and compiles locally) while the server is down.
[[nodiscard]] Expected<std::shared_ptr<CacheBackend>> createRedisCache(RedisCacheOptions options);

}  // namespace memjit::jit
