// Naming a cache backend by a string: a Redis URL or a directory.
#include <charconv>

#include "memjit/jit/cache_backend.h"
#include "memjit/jit/directory_cache.h"
#include "memjit/jit/redis_cache.h"

namespace memjit::jit {
namespace {

constexpr std::string_view kScheme = "redis://";

Expected<long> number(std::string_view text, std::string_view what, const std::string& url) {
  long value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || value < 0)
    return Error(ErrorCode::ParseError, "redis URL '" + url + "': " + std::string(what) + " '" + std::string(text) +
                                            "' is not a non-negative number");
  return value;
}

}  // namespace

Expected<RedisCacheOptions> parseRedisUrl(const std::string& url) {
  if (!url.starts_with(kScheme))
    return Error(ErrorCode::ParseError, "redis URL '" + url + "' does not start with redis://");
  RedisCacheOptions options;
  std::string_view rest = std::string_view(url).substr(kScheme.size());
  std::string_view query;
  if (auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (slash + 1 < rest.size()) options.prefix = std::string(rest.substr(slash + 1));
    rest = rest.substr(0, slash);
  }
  if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
    MEMJIT_ASSIGN_OR_RETURN(long port, number(rest.substr(colon + 1), "port", url));
    if (port == 0 || port > 65535)
      return Error(ErrorCode::ParseError, "redis URL '" + url + "': port " + std::to_string(port) + " is out of range");
    options.port = static_cast<int>(port);
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return Error(ErrorCode::ParseError, "redis URL '" + url + "' names no host");
  options.host = std::string(rest);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const auto eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (name == "ttl") {
      MEMJIT_ASSIGN_OR_RETURN(long seconds, number(value, "ttl", url));
      options.ttl = std::chrono::seconds(seconds);
    } else if (name == "timeout") {
      MEMJIT_ASSIGN_OR_RETURN(long ms, number(value, "timeout", url));
      if (ms == 0) return Error(ErrorCode::ParseError, "redis URL '" + url + "': the timeout must be positive");
      options.timeout = std::chrono::milliseconds(ms);
    } else {
      return Error(ErrorCode::ParseError, "redis URL '" + url + "': unknown parameter '" + std::string(name) +
                                              "' (known: ttl, timeout)");
    }
  }
  return options;
}

Expected<std::shared_ptr<CacheBackend>> openCacheLocation(const std::string& location) {
  if (location.starts_with(kScheme)) {
    MEMJIT_ASSIGN_OR_RETURN(RedisCacheOptions options, parseRedisUrl(location));
    return createRedisCache(std::move(options));
  }
  MEMJIT_ASSIGN_OR_RETURN(auto directory, DirectoryCache::open(location));
  return std::shared_ptr<CacheBackend>(std::move(directory));
}

}  // namespace memjit::jit
