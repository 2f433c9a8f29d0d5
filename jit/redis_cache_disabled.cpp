// The Redis backend of a memjit built without hiredis (MEMJIT_REDIS=OFF).
#include "memjit/jit/redis_cache.h"

namespace memjit::jit {

bool redisCacheAvailable() noexcept { return false; }

Expected<std::shared_ptr<CacheBackend>> createRedisCache(RedisCacheOptions options) {
  return Error(ErrorCode::Unsupported, "redis cache redis://" + options.host + ":" + std::to_string(options.port) +
                                           ": this memjit was built without Redis support (MEMJIT_REDIS=OFF)");
}

}  // namespace memjit::jit
