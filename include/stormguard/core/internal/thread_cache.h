// stormguard/core/internal/thread_cache.h (internal): one object of type T
// per thread, reached without an initialisation check once made, and
// reported gone (null) after the thread's thread_local destructors ran.
//
//   if (Pool* pool = core_internal::ThreadCache<Pool>()) ...  // else: heap
//
// A thread_local with a destructor is reached through a guard check on
// every use; the plain pointer to it is not. The pointer is cleared before
// T is destroyed, so code that runs during thread exit (another
// thread_local's destructor freeing into the cache) falls back to the heap
// instead of touching a destroyed T.
// Not part of the public API. Thread safety: each thread sees its own T.
#pragma once

namespace stormguard::core_internal {

// The fast path is forced inline and the first use kept out of line: GCC
// otherwise calls the whole function, whose frame costs more than the load.
template <class T>
[[gnu::always_inline]] inline T* ThreadCache() noexcept {
  thread_local T* cached = nullptr;
  if (cached != nullptr) [[likely]]
    return cached;
  return []() __attribute__((noinline))->T* {
    thread_local bool gone = false;
    if (gone) return nullptr;
    struct Holder {
      T value;
      ~Holder() {
        cached = nullptr;
        gone = true;
      }
    };
    thread_local Holder holder;
    cached = &holder.value;
    return cached;
  }
  ();
}

}  // namespace stormguard::core_internal
