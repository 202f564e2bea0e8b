// Counts heap allocations of the calling thread, to show that executing a
// pipeline allocates nothing on the success path. This file replaces the
// global operator new for the whole test binary (counting only; it forwards
// to malloc), so it must stay the binary's only replacement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>
#include <optional>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/counters.h"

namespace {
thread_local std::uint64_t thread_allocations = 0;

void* CountedAlloc(std::size_t n) {
  ++thread_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return CountedAlloc(n); }
void* operator new[](std::size_t n) { return CountedAlloc(n); }
// Not inlined: GCC at -O1 (the sanitizer builds) would see the new
// expression's operator new paired with this free() and warn of a mismatch.
[[gnu::noinline]] void operator delete(void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testing::Unwrap;

TEST(PipelineAllocationTest, SuccessPathAllocatesNothingAfterWarmUp) {
  CountingListener counters;  // listening must not allocate either
  Pipeline p = Unwrap(PipelineBuilder({.listener = &counters})
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
  Pipeline p = Unwrap(PipelineBuilder()
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

TEST(PipelineAllocationTest, AnAsynchronousCallAllocatesItsFrameOnly) {
  testing::ManualEnv env;
  Pipeline p = Unwrap(PipelineBuilder(env.options())
                          .AddRetry({.max_attempts = 3})
                          .AddCircuitBreaker(CircuitBreakerOptions{})
                          .AddBulkhead(BulkheadOptions{.max_concurrent = 4})
                          .Build());
  CallContext ctx;
  int answers = 0;
  auto attempt = [](CallContext&, Completion<Result<int>> done) { done(7); };
  auto done = [&answers](Result<int> r) { answers += r.ok() ? 1 : 0; };
  p.ExecuteAsync<Result<int>>(ctx, attempt, done);  // warm-up
  const std::uint64_t before = thread_allocations;
  for (int i = 0; i < 100; ++i) p.ExecuteAsync<Result<int>>(ctx, attempt, done);
  EXPECT_EQ(thread_allocations - before, 100u);
  EXPECT_EQ(answers, 101);
}

TEST(PipelineAllocationTest, AHedgedAttemptCostsABranchAndAStopSource) {
  testing::ManualEnv env;
  auto executor = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  Pipeline p = Unwrap(PipelineBuilder(env.options())
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
  call();  // warm-up (the timer service's storage)
  const std::uint64_t before = thread_allocations;
  call();
  // The frame, then per hedged attempt a branch and its stop_source.
  EXPECT_EQ(thread_allocations - before, 1u + 2u * 2u);
  EXPECT_EQ(answers, 2);
}

TEST(PipelineAllocationTest, TheCounterSeesAllocations) {
  const std::uint64_t before = thread_allocations;
  int* volatile allocated = new int(1);  // volatile: the allocation cannot be elided
  delete allocated;
  EXPECT_EQ(thread_allocations - before, 1u);  // the meter itself can fail
}

}  // namespace
}  // namespace stormguard
