// What Get costs: nothing allocated once a thread is warm, not even for a
// wildcard lookup, and a reference counted per thread. This file replaces
// the global operator new for the whole config test binary (counting only;
// it forwards to malloc), so it must stay the binary's only replacement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <latch>
#include <new>
#include <thread>
#include <vector>

#include "registry_test_util.h"

namespace {
thread_local std::uint64_t thread_allocations = 0;

void* CountedAlloc(std::size_t n, std::size_t align = alignof(std::max_align_t)) {
  ++thread_allocations;
  n = n == 0 ? 1 : n;
  void* p =
      align <= alignof(std::max_align_t) ? std::malloc(n) : std::aligned_alloc(align, (n + align - 1) / align * align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void* operator new(std::size_t n) { return CountedAlloc(n); }
void* operator new[](std::size_t n) { return CountedAlloc(n); }
void* operator new(std::size_t n, std::align_val_t a) { return CountedAlloc(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return CountedAlloc(n, static_cast<std::size_t>(a)); }
// Not inlined: GCC at -O1 (the sanitizer builds) would see the new
// expression's operator new paired with this free() and warn of a mismatch.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

namespace stormguard::config {
namespace {
using testkit::RegistryEnv;

constexpr std::string_view kConfig = R"({"destinations": {"inventory-service-eu-west": {
    "pipeline": {"stages": [{"retry": {}}]},
    "methods": {"com.example.StockService/*": {"timeout": "1s"}, "*": {"timeout": "2s"}}}}})";

TEST(RegistryAllocationTest, AWarmGetAllocatesNothing) {
  RegistryEnv env;
  Registry registry(env.Options());
  ASSERT_TRUE(registry.Apply(kConfig, "test").ok());
  // Names longer than any small-string buffer: a temporary std::string would allocate.
  const std::string_view dest = "inventory-service-eu-west";
  const std::string_view method = "com.example.StockService/GetStockLevel";
  (void)registry.Get(dest, method);  // warm: this thread's reference
  const std::uint64_t before = thread_allocations;
  for (int i = 0; i < 1000; ++i) {
    (void)registry.Get(dest, method);
    (void)registry.Get(dest, "com.example.Other/Get");
    (void)registry.Get("unknown-destination-with-a-long-name", method);
  }
  EXPECT_EQ(thread_allocations - before, 0u);

  // Held, so that the first configuration is not freed (which may allocate) in the Get below.
  const PipelineRef old = registry.Get(dest, method);
  ASSERT_TRUE(registry.Apply(kConfig, "again").ok());
  const std::uint64_t reloaded = thread_allocations;
  EXPECT_NE(registry.Get(dest, method).get(), old.get());
  EXPECT_EQ(thread_allocations - reloaded, 1u) << "the first Get after a reload takes a new reference";
}

TEST(RegistryAllocationTest, ThreadsCountTheirHandlesOnReferencesOfTheirOwn) {
  RegistryEnv env;
  Registry registry(env.Options());
  const PipelineRef here = registry.Get("d");
  const PipelineRef again = registry.Get("e");
  PipelineRef there;
  std::thread([&] { there = registry.Get("d"); }).join();
  ASSERT_EQ(here, there);
  EXPECT_EQ(testkit::ReferenceOf(here), testkit::ReferenceOf(again));
  EXPECT_NE(testkit::ReferenceOf(here), testkit::ReferenceOf(there)) << "one shared counter for every thread";
}

TEST(RegistryAllocationTest, ThreadsBeyondTheSlotsShareOneReference) {
  RegistryEnv env;
  Registry registry(env.Options());
  (void)registry.Get("d");  // this thread holds a slot too
  constexpr int kThreads = Registry::kThreadSlots + 1;
  std::vector<PipelineRef> handles(kThreads);
  std::latch all_hold(kThreads);  // nobody exits (giving its slot back) before everyone has one
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      handles[static_cast<std::size_t>(i)] = registry.Get("d");
      all_hold.arrive_and_wait();
    });
  }
  for (std::thread& t : threads) t.join();
  int shared = 0;
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(handles[static_cast<std::size_t>(i)], handles[0]);
    for (int j = i + 1; j < kThreads; ++j) {
      if (testkit::ReferenceOf(handles[static_cast<std::size_t>(i)]) ==
          testkit::ReferenceOf(handles[static_cast<std::size_t>(j)])) {
        ++shared;
      }
    }
  }
  EXPECT_GE(shared, 1) << "at least two threads found no slot and share one reference";
}

}  // namespace
}  // namespace stormguard::config
