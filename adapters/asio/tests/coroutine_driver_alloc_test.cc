// Counts the heap allocations of the calling thread, to show that a call
// whose attempt answers at once allocates nothing once the thread's caches
// are warm: the driver's frame, the pipeline's frame and the result come
// from the block cache, the attempt's coroutines from Asio's. This file is
// the test binary's one user of testkit/counting_new.h.
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>

#include "asio_driver.h"
#include "testkit/counting_new.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;

asio::awaitable<Result<int>> ReadyAnswer(CallContext&) { co_return 7; }

// Before the driver's frame came from the block cache, two of the four
// coroutine frames a call holds at once (the caller's, the driver's, the
// attempt's entry, the attempt's own) missed Asio's two-frame cache: two
// allocations per call.
TEST(CoroutineDriverAllocationTest, ACallAnsweredAtOnceAllocatesNothingOnceWarm) {
  const PipelineRef p = Unwrap(PipelineBuilder()
                                   .AddTimeout(1s)
                                   .AddRetry({.max_attempts = 3})
                                   .AddCircuitBreaker({})
                                   .AddBulkhead({.max_concurrent = 100})
                                   .Build());
  constexpr int kWarm = 100, kCounted = 1000;
  std::uint64_t allocations = 0;
  int answered = 0;
  asio::io_context io;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        CallContext ctx;
        for (int i = 0; i < kWarm + kCounted; ++i) {
          if (i == kWarm) allocations = thread_allocations;
          answered += (co_await p.Execute(ctx, ReadyAnswer)).ok();
        }
        allocations = thread_allocations - allocations;
      },
      Rethrow);
  io.run();
  EXPECT_EQ(answered, kWarm + kCounted);
  EXPECT_EQ(allocations, 0u) << "over " << kCounted << " calls";
}

}  // namespace
}  // namespace stormguard::testkit
