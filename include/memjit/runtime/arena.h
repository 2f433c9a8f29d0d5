// The temporaries' arena: where a kernel's non-escaping `alloc`s live (see
// "Temporaries" in docs/runtime.md). One arena per thread, a stack of bump
// chunks. Generated code brackets every function that allocates from it:
//
//   void* mark = memjit_arena_mark();        // entry
//   p = memjit_arena_alloc(bytes, align);    // each non-escaping alloc
//   memjit_arena_free(p);                    // its dealloc, if any
//   memjit_arena_release(mark);              // before every return
//
// so blocks are released at function exit, nested and recursive calls stack,
// and a parallel body running on a pool thread uses that thread's arena. After
// the first call a kernel's temporaries come from a chunk the arena keeps: no
// malloc, the same addresses each call. What the arena keeps is bounded by the
// largest amount one outermost call used (memjit_arena_trim returns it), and
// thread exit frees it.
//
// Built with -fsanitize=address, the unused parts of every chunk are poisoned,
// so an instrumented access past a block (or to a released one) is reported.
//
// This header is also C: the C ABI below is what AOT objects call.
#ifndef MEMJIT_RUNTIME_ARENA_H
#define MEMJIT_RUNTIME_ARENA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The calling thread's arena position, for memjit_arena_release.
void* memjit_arena_mark(void);
/// `bytes` bytes aligned to `align` (a power of two) from the calling thread's arena; never null (a failed chunk
/// allocation aborts, as a failed malloc in a kernel would crash).
void* memjit_arena_alloc(size_t bytes, size_t align);
/// A dealloc: the block's space is reused at once when it is the newest one; otherwise at the enclosing release.
/// A pointer the arena did not hand out is passed to free().
void memjit_arena_free(void* p);
/// Releases every block allocated since `mark` was taken on this thread.
void memjit_arena_release(void* mark);
/// Frees the chunks the calling thread's arena keeps while nothing is allocated from it (no-op otherwise).
void memjit_arena_trim(void);

#ifdef __cplusplus
}

namespace memjit::runtime {

/// The calling thread's arena, for tests and tuning.
struct ArenaStats {
  size_t chunkAllocations = 0;  // chunks ever malloc'd by this thread's arena
  size_t blocks = 0;            // blocks ever handed out
  size_t bytesInUse = 0;        // from the chunks' starts to the current tops
  size_t peakBytesInUse = 0;    // the most bytes in use at once since the thread started (chunks' ends included)
  size_t bytesKept = 0;         // capacity of the chunks held (in use or cached)
  const void* lastBlock = nullptr;  // the newest block handed out
};
ArenaStats arenaStats() noexcept;

}  // namespace memjit::runtime
#endif

#endif
