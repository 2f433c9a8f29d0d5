// The temporaries' arena (memjit/runtime/arena.h): per thread, a stack of
// chunks with a bump cursor. Each block is preceded by a small header (the
// cursor before it and its end) so a dealloc of the newest block gives its
// space back at once, as alloc/dealloc pairs in a loop need.
#include "memjit/runtime/arena.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__SANITIZE_ADDRESS__)
#define MEMJIT_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMJIT_ARENA_ASAN 1
#endif
#endif
#ifdef MEMJIT_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace memjit::runtime {

namespace {

void poison(const char* p, std::size_t n) {
#ifdef MEMJIT_ARENA_ASAN
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

void unpoison(const char* p, std::size_t n) {
#ifdef MEMJIT_ARENA_ASAN
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p, (void)n;
#endif
}

// Small kernels' temporaries all fit the first chunk.
constexpr std::size_t kMinChunk = 64 * 1024;

struct Chunk {
  Chunk* prev;
  std::size_t capacity;
  char* begin() { return reinterpret_cast<char*>(this + 1); }
  char* end() { return begin() + capacity; }
  bool holds(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    return a >= reinterpret_cast<std::uintptr_t>(begin()) && a <= reinterpret_cast<std::uintptr_t>(end());
  }
};

// Before each block: where the cursor was and where the block ends.
struct BlockHeader {
  char* before;
  char* end;
};

char* alignUp(char* p, std::size_t align) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return p + ((align - a % align) % align);
}

class Arena {
 public:
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    while (top_) drop(pop());
    drop(spare_);
  }

  void* mark() const noexcept { return cursor_; }

  void* allocate(std::size_t bytes, std::size_t align) noexcept {
    if (align == 0 || (align & (align - 1))) align = alignof(std::max_align_t);
    const std::size_t overhead = sizeof(BlockHeader) + align;
    if (bytes > SIZE_MAX / 2 - overhead - sizeof(Chunk)) return nullptr;
    char* p = top_ ? alignUp(cursor_ + sizeof(BlockHeader), align) : nullptr;
    if (!p || p > top_->end() || static_cast<std::size_t>(top_->end() - p) < bytes) {
      if (!push(bytes + overhead)) return nullptr;
      p = alignUp(cursor_ + sizeof(BlockHeader), align);
    }
    const BlockHeader header{cursor_, p + bytes};
    unpoison(p - sizeof header, sizeof header + bytes);
    std::memcpy(p - sizeof header, &header, sizeof header);
    poison(p - sizeof header, sizeof header);
    cursor_ = p + bytes;
    const std::size_t inUse = inUseCapacity_ - top_->capacity + static_cast<std::size_t>(cursor_ - top_->begin());
    if (inUse > stats_.peakBytesInUse) stats_.peakBytesInUse = inUse;
    if (inUse > outermostPeak_) outermostPeak_ = inUse;
    ++stats_.blocks;
    stats_.lastBlock = p;
    return p;
  }

  void free(void* p) noexcept {
    for (Chunk* c = top_; c; c = c->prev)
      if (c->holds(p)) {
        if (c != top_) return;
        BlockHeader header;
        char* at = static_cast<char*>(p) - sizeof header;
        unpoison(at, sizeof header);
        std::memcpy(&header, at, sizeof header);
        if (header.end == cursor_) {
          poison(header.before, static_cast<std::size_t>(cursor_ - header.before));
          cursor_ = header.before;
        } else {
          poison(at, sizeof header);
        }
        return;
      }
    std::free(p);
  }

  void release(void* mark) noexcept {
    while (top_ && !(mark && top_->holds(mark))) retire(pop());
    if (!top_) {
      cursor_ = nullptr;
      // Everything is released: the next outermost call gets one chunk as large as the most this one used at once.
      // (An eighth more: one chunk pads its blocks' alignments differently from several.)
      const std::size_t wanted = outermostPeak_ + outermostPeak_ / 8;
      if (wanted > nextCapacity_) nextCapacity_ = wanted;
      if (spare_ && spare_->capacity < nextCapacity_) {
        drop(spare_);
        spare_ = nullptr;
      }
      outermostPeak_ = 0;
      return;
    }
    char* to = static_cast<char*>(mark);
    if (to < cursor_) poison(to, static_cast<std::size_t>(cursor_ - to));
    cursor_ = to;
  }

  void trim() noexcept {
    if (top_) return;
    drop(spare_);
    spare_ = nullptr;
    nextCapacity_ = 0;
  }

  ArenaStats stats() noexcept {
    ArenaStats s = stats_;
    s.bytesInUse = 0;
    s.bytesKept = spare_ ? spare_->capacity : 0;
    for (Chunk* c = top_; c; c = c->prev) {
      s.bytesKept += c->capacity;
      s.bytesInUse += static_cast<std::size_t>((c == top_ ? cursor_ : c->end()) - c->begin());
    }
    return s;
  }

 private:
  bool push(std::size_t need) noexcept {
    std::size_t capacity = need > kMinChunk ? need : kMinChunk;
    const std::size_t grown = top_ ? 2 * top_->capacity : nextCapacity_;
    if (grown > capacity) capacity = grown;
    Chunk* c = nullptr;
    if (spare_ && spare_->capacity >= need && (top_ || spare_->capacity >= nextCapacity_)) {
      c = spare_;
      spare_ = nullptr;
    } else {
      c = static_cast<Chunk*>(std::malloc(sizeof(Chunk) + capacity));
      if (!c) return false;
      c->capacity = capacity;
      poison(c->begin(), capacity);
      ++stats_.chunkAllocations;
    }
    c->prev = top_;
    top_ = c;
    cursor_ = c->begin();
    inUseCapacity_ += c->capacity;
    return true;
  }

  Chunk* pop() noexcept {
    Chunk* c = top_;
    top_ = c->prev;
    cursor_ = top_ ? top_->end() : nullptr;
    inUseCapacity_ -= c->capacity;
    poison(c->begin(), c->capacity);
    return c;
  }

  // Keeps the largest chunk for the next call.
  void retire(Chunk* c) noexcept {
    if (!spare_) {
      spare_ = c;
    } else if (c->capacity > spare_->capacity) {
      drop(spare_);
      spare_ = c;
    } else {
      drop(c);
    }
  }

  static void drop(Chunk* c) noexcept {
    if (!c) return;
    unpoison(c->begin(), c->capacity);
    std::free(c);
  }

  Chunk* top_ = nullptr;
  char* cursor_ = nullptr;
  Chunk* spare_ = nullptr;
  // Capacity of the chunks in use; the most bytes in use at once since the arena was last empty (a chunk's unused
  // end counted once a later chunk is in use); the capacity of the chunk an empty arena starts with.
  std::size_t inUseCapacity_ = 0, outermostPeak_ = 0, nextCapacity_ = 0;
  ArenaStats stats_;
};

thread_local Arena arena;

}  // namespace

ArenaStats arenaStats() noexcept { return arena.stats(); }

}  // namespace memjit::runtime

extern "C" {

void* memjit_arena_mark(void) { return memjit::runtime::arena.mark(); }
void* memjit_arena_alloc(size_t bytes, size_t align) { return memjit::runtime::arena.allocate(bytes, align); }
void memjit_arena_free(void* p) { memjit::runtime::arena.free(p); }
void memjit_arena_release(void* mark) { memjit::runtime::arena.release(mark); }
void memjit_arena_trim(void) { memjit::runtime::arena.trim(); }

}  // extern "C"
