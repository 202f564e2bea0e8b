// Counts the heap allocations and frees of each thread by replacing the
// global operator new and delete (counting only; they forward to malloc).
// A replacement is one per program: include this in exactly one file of a
// test binary, and read the counts there.
//
//   const std::uint64_t before = testkit::thread_allocations;
//   ...                                     // the code under test
//   EXPECT_EQ(testkit::thread_allocations - before, 0u);
#pragma once

#include <cstdint>
#include <cstdlib>
#include <new>

namespace stormguard::testkit {
inline thread_local std::uint64_t thread_allocations = 0;
inline thread_local std::uint64_t thread_frees = 0;

inline void CountedFree(void* p) noexcept {
  if (p != nullptr) ++thread_frees;
  std::free(p);
}

inline void* CountedAlloc(std::size_t n) {
  ++thread_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace stormguard::testkit

void* operator new(std::size_t n) { return stormguard::testkit::CountedAlloc(n); }
void* operator new[](std::size_t n) { return stormguard::testkit::CountedAlloc(n); }
// The nothrow forms too (std::stable_sort's buffer): each form's delete is
// the plain one, so every new of the program must be ours, or ASan sees its
// own allocation freed with free().
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++stormguard::testkit::thread_allocations;
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& tag) noexcept { return operator new(n, tag); }
// Not inlined: GCC at -O1 (the sanitizer builds) would see the new
// expression's operator new paired with this free() and warn of a mismatch.
[[gnu::noinline]] void operator delete(void* p) noexcept { stormguard::testkit::CountedFree(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { stormguard::testkit::CountedFree(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { stormguard::testkit::CountedFree(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { stormguard::testkit::CountedFree(p); }
[[gnu::noinline]] void operator delete(void* p, const std::nothrow_t&) noexcept { stormguard::testkit::CountedFree(p); }
[[gnu::noinline]] void operator delete[](void* p, const std::nothrow_t&) noexcept {
  stormguard::testkit::CountedFree(p);
}
