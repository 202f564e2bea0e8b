#include "alloc_counter.h"

#include <cstdlib>
#include <new>

namespace stormguard::bench {
namespace {
thread_local std::uint64_t allocations = 0;
}  // namespace
std::uint64_t ThreadAllocations() noexcept { return allocations; }

void* CountedAlloc(std::size_t n) {
  ++allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}

void* CountedAlignedAlloc(std::size_t n, std::align_val_t align) {
  ++allocations;
  const auto a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (n + a - 1) / a * a + (n == 0 ? a : 0))) return p;
  throw std::bad_alloc();
}
}  // namespace stormguard::bench

void* operator new(std::size_t n) { return stormguard::bench::CountedAlloc(n); }
void* operator new[](std::size_t n) { return stormguard::bench::CountedAlloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return stormguard::bench::CountedAlignedAlloc(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return stormguard::bench::CountedAlignedAlloc(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
