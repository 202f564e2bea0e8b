// Counts heap allocations (and frees) of the calling thread, to show that
// executing a pipeline allocates nothing on the success path, and how the
// per-thread block cache behind asynchronous frames recycles. This file is
// the test binary's one user of testkit/counting_new.h.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <new>
#include <optional>
#include <thread>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/core/internal/block_cache.h"
#include "stormguard/metrics/counters.h"
#include "testkit/counting_new.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::thread_allocations;
using testkit::thread_frees;
using testkit::Unwrap;

TEST(PipelineAllocationTest, SuccessPathAllocatesNothingAfterWarmUp) {
  CountingListener counters;  // listening must not allocate either
  PipelineRef p = Unwrap(PipelineBuilder({.listener = &counters})
                             .AddFallback({.skip_when_remaining_below = 1ms})
                             .AddTimeout(10s)
                             .AddRetry({.max_attempts = 3, .idempotent = true})
                             .AddRequireIdempotencyKey()
                             .AddAttemptTimeout(5s)
                             .Build());
  CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 1h), .idempotency_key = "order-1"};
  auto call = [](CallContext&) -> Result<int> { return 7; };
  auto fallback = [](const Status&) -> Result<int> { return 0; };
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(p.Execute(ctx, call, fallback).ok());  // warm-up
  const std::uint64_t before = thread_allocations;
  for (int i = 0; i < 1000; ++i) {
    Result<int> r = p.Execute(ctx, call, fallback);
    ASSERT_EQ(r.value(), 7);
  }
  EXPECT_EQ(thread_allocations - before, 0u);
}

TEST(PipelineAllocationTest, HedgedSuccessPathAllocatesNothingOnTheCallersThread) {
  // The primary answers at once: the hedge's delay is armed on the
  // executor's TimerService and disarmed, and the primary's stop source and
  // the buffer its context's key is copied into (a UUID: longer than the
  // short-string buffer) come from the thread's pools.
  auto executor = Unwrap(Executor::Create({.threads = 1}));
  PipelineRef p = Unwrap(PipelineBuilder()
                             .AddHedge({.delay = 1h, .max_hedged_attempts = 1, .idempotent = true}, executor)
                             .AddAttemptTimeout(5s)
                             .Build());
  CallContext ctx{.deadline = Deadline::After(Clock::Real().Now(), 1h),
                  .idempotency_key = "5f0c8a2e-3b7d-4c1a-9e6f-2d8b7a1c4e90"};
  auto call = [](CallContext& c) -> Result<int> { return c.idempotency_key.size() == 36 ? 7 : 0; };
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(p.Execute(ctx, call).ok());  // warm-up
  const std::uint64_t before = thread_allocations;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(p.Execute(ctx, call).value(), 7);
  EXPECT_EQ(thread_allocations - before, 0u);
}

TEST(PipelineAllocationTest, AWarmAsynchronousCallAllocatesNothing) {
  // The frame comes from the thread's block cache and the overall timeout's
  // stop_source from the thread's pool.
  testkit::ManualEnv env;
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddTimeout(10s)
                             .AddRetry({.max_attempts = 3})
                             .AddCircuitBreaker(CircuitBreakerOptions{})
                             .AddBulkhead(BulkheadOptions{.max_concurrent = 4})
                             .Build());
  CallContext ctx;
  int answers = 0;
  auto attempt = [](CallContext&, Completion<Result<int>> done) { done(7); };
  auto done = [&answers](Result<int> r) { answers += r.ok() ? 1 : 0; };
  for (int i = 0; i < 10; ++i) p.ExecuteAsync<Result<int>>(ctx, attempt, done);  // warm-up
  const std::uint64_t before = thread_allocations;
  for (int i = 0; i < 100; ++i) p.ExecuteAsync<Result<int>>(ctx, attempt, done);
  EXPECT_EQ(thread_allocations - before, 0u);
  EXPECT_EQ(answers, 110);
}

TEST(PipelineAllocationTest, AHedgedAttemptCostsOnlyItsStopSourceOnceWarm) {
  testkit::ManualEnv env;
  auto executor = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddHedge({.delay = 10ms, .max_hedged_attempts = 1, .idempotent = true}, executor)
                             .Build());
  std::optional<Completion<Result<int>>> primary;
  int answers = 0;
  auto call = [&] {  // the primary hangs; the hedge launches after 10ms and wins
    CallContext ctx;
    p.ExecuteAsync<Result<int>>(
        ctx,
        [&](CallContext& c, Completion<Result<int>> d) {
          if (c.attempt == 1) return primary.emplace(std::move(d)), void();
          d(7);
        },
        [&](Result<int> r) { answers += r.ok() ? 1 : 0; });
    env.AdvanceAndFire(10ms);
    (*std::exchange(primary, std::nullopt))(8);  // the loser reports late
  };
  call();  // warm-up (the timer service's storage, the block cache)
  const std::uint64_t before = thread_allocations;
  call();
  // The frame and both branches are recycled blocks; each hedged attempt
  // still makes its own stop_source (the hedge keeps copies to stop losers).
  EXPECT_EQ(thread_allocations - before, 2u);
  EXPECT_EQ(answers, 2);
}

// Each block cache test runs on a new thread, whose cache starts empty.
template <class F>
void OnNewThread(F f) {
  std::thread(f).join();
}

TEST(BlockCacheTest, AFreedBlockServesTheNextRequestOfItsSizeClass) {
  OnNewThread([] {
    void* block = core_internal::AllocateBlock(300);
    core_internal::FreeBlock(block, 300);
    const std::uint64_t before = thread_allocations;
    void* again = core_internal::AllocateBlock(310);  // the same class: 257..320 bytes
    EXPECT_EQ(again, block);
    EXPECT_EQ(thread_allocations - before, 0u);
    core_internal::FreeBlock(again, 310);
  });
}

// A waiting call holds its frame for as long as it waits, so a block's
// rounding is paid once per waiting call: at most a quarter of the request.
TEST(BlockCacheTest, ABlockIsAtMostAQuarterLargerThanAskedFor) {
  OnNewThread([] {
    for (std::size_t asked : {129u, 200u, 392u, 520u, 1100u, 3000u, 4096u}) {
      void* block = core_internal::AllocateBlock(asked);
      const std::size_t usable = malloc_usable_size(block);  // glibc adds at most 16 bytes of rounding
      EXPECT_GE(usable, asked) << asked;
      EXPECT_LE(usable, asked + asked / 4 + 16) << asked;
      core_internal::FreeBlock(block, asked);
    }
  });
}

TEST(BlockCacheTest, KeepsAtMostItsCountPerClass) {
  OnNewThread([] {
    std::vector<void*> blocks;
    for (std::size_t i = 0; i < 2 * core_internal::kBlocksPerClass; ++i) {
      blocks.push_back(core_internal::AllocateBlock(200));
    }
    const std::uint64_t frees = thread_frees;
    for (void* b : blocks) core_internal::FreeBlock(b, 200);
    EXPECT_EQ(thread_frees - frees, core_internal::kBlocksPerClass);  // the rest went back to the heap
    const std::uint64_t before = thread_allocations;
    for (void*& b : blocks) b = core_internal::AllocateBlock(200);
    EXPECT_EQ(thread_allocations - before, core_internal::kBlocksPerClass);
    for (void* b : blocks) core_internal::FreeBlock(b, 200);
  });
}

TEST(BlockCacheTest, KeepsAtMostItsBytesInAll) {
  OnNewThread([] {
    // The largest class alone fills the cache's bytes; smaller blocks then go to the heap.
    constexpr std::size_t kLargest = 4096;
    static_assert(core_internal::kBlocksPerClass * kLargest == core_internal::kCacheBytes);
    std::vector<void*> large, small;
    for (std::size_t i = 0; i < core_internal::kBlocksPerClass; ++i) {
      large.push_back(core_internal::AllocateBlock(kLargest));
      small.push_back(core_internal::AllocateBlock(128));
    }
    for (void* b : large) core_internal::FreeBlock(b, kLargest);
    const std::uint64_t frees = thread_frees;
    for (void* b : small) core_internal::FreeBlock(b, 128);
    EXPECT_EQ(thread_frees - frees, core_internal::kBlocksPerClass);
  });
}

TEST(BlockCacheTest, ALargerBlockIsNeverCached) {
  OnNewThread([] {
    void* block = core_internal::AllocateBlock(5000);
    const std::uint64_t frees = thread_frees;
    core_internal::FreeBlock(block, 5000);
    EXPECT_EQ(thread_frees - frees, 1u);
  });
}

TEST(BlockCacheTest, ABlockFreedOnAnotherThreadJoinsThatThreadsCache) {
  void* block = core_internal::AllocateBlock(1000);
  OnNewThread([block] {
    core_internal::FreeBlock(block, 1000);
    const std::uint64_t before = thread_allocations;
    void* again = core_internal::AllocateBlock(1000);
    EXPECT_EQ(again, block);
    EXPECT_EQ(thread_allocations - before, 0u);
    core_internal::FreeBlock(again, 1000);
  });
}

TEST(BlockCacheTest, AThreadsCacheGoesBackToTheHeapWhenItExits) {
  // thread_locals are destroyed in the reverse order of their making, so the
  // frees between the two marks are the cache's own.
  struct Mark {
    std::uint64_t* out;
    ~Mark() { *out = thread_frees; }
  };
  static std::uint64_t cache_gone = 0, cache_going = 0;
  OnNewThread([] {
    thread_local Mark after_cache{&cache_gone};
    void* blocks[3] = {core_internal::AllocateBlock(128), core_internal::AllocateBlock(256),
                       core_internal::AllocateBlock(2000)};
    thread_local Mark before_cache{&cache_going};
    core_internal::FreeBlock(blocks[0], 128);
    core_internal::FreeBlock(blocks[1], 256);
    core_internal::FreeBlock(blocks[2], 2000);
    (void)after_cache.out, (void)before_cache.out;
  });
  EXPECT_EQ(cache_gone - cache_going, 3u);
}

TEST(PipelineAllocationTest, TheCounterSeesAllocations) {
  const std::uint64_t before = thread_allocations;
  int* volatile allocated = new int(1);  // volatile: the allocation cannot be elided
  delete allocated;
  EXPECT_EQ(thread_allocations - before, 1u);  // the meter itself can fail
}

}  // namespace
}  // namespace stormguard
