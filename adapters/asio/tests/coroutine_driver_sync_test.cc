// The coroutine driver's fast path and its one race: a call that ends
// inside its start goes on without suspending the caller and without a
// trip through the io_context; a call that ends on another thread while
// the caller is being suspended still answers exactly once.
#include <gtest/gtest.h>

#include <asio/detached.hpp>
#include <atomic>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "asio_driver.h"
#include "async_test_util.h"
#include "testkit/wait_until.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;

const Status kUnavailable = Status::Unavailable("down");

asio::awaitable<Result<int>> AnswerSeven(CallContext&) { co_return 7; }

// The address of this function's frame: how deep the stack is where it is called.
[[gnu::noinline]] std::uintptr_t StackDepth() { return reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0)); }

// Guards with no timer on the success path: the only handlers the context
// could run are the driver's.
PipelineRef GuardedPipeline() {
  return Unwrap(PipelineBuilder()
                    .AddRetry({.max_attempts = 3})
                    .AddCircuitBreaker(CircuitBreakerOptions{})
                    .AddBulkhead(BulkheadOptions{.max_concurrent = 10})
                    .Build());
}

asio::awaitable<void> ReadyCalls(const PipelineRef& p, int calls, int& ok) {
  CallContext ctx;
  for (int i = 0; i < calls; ++i) {
    if ((co_await p.Execute(ctx, AnswerSeven)).ok()) ++ok;
  }
}

// Runs `calls` synchronous calls in one coroutine; returns the handlers the context ran.
std::size_t HandlersRun(const PipelineRef& p, int calls) {
  asio::io_context io;
  int ok = 0;
  asio::co_spawn(io, ReadyCalls(p, calls, ok), asio::detached);
  const std::size_t handlers = io.run();
  EXPECT_EQ(ok, calls);
  return handlers;
}

// Before, each call posted its caller's resumption and its attempt's co_spawn completion.
TEST(CoroutineDriverSyncTest, ACallThatEndsInItsStartRunsNoHandlerOfTheContext) {
  const PipelineRef p = GuardedPipeline();
  EXPECT_EQ(HandlersRun(p, 5), HandlersRun(p, 0));
}

// A timeout that never fires costs the context nothing either: the calls
// share one Asio wait, armed by the first, and a cancel leaves it armed (a
// timer per call posted an aborted completion per call). Bounded: were the
// armed wait counted as work, run() would wait out the hour.
TEST(CoroutineDriverSyncTest, ATimeoutThatNeverFiresRunsNoHandlerOfTheContext) {
  const PipelineRef p = Unwrap(PipelineBuilder().AddTimeout(1h).AddRetry({.max_attempts = 3}).Build());
  const auto handlers = [&p](int calls) {
    asio::io_context io;
    int ok = 0;
    asio::co_spawn(io, ReadyCalls(p, calls, ok), asio::detached);
    const std::size_t run = io.run_for(20s);
    EXPECT_TRUE(io.stopped());
    EXPECT_EQ(ok, calls);
    return run;
  };
  EXPECT_EQ(handlers(50), handlers(0));
}

asio::awaitable<void> OneCall(const PipelineRef& p, CallContext& ctx, std::stop_token& seen, bool& ok) {
  ok = (co_await p.Execute(ctx, [&seen](CallContext& c) -> asio::awaitable<Result<int>> {
         seen = c.stop;
         co_return 7;
       })).ok();
}

// A coroutine that can be cancelled gets the call its own stop source; a
// call that ends in its start must hand the caller's token back too.
TEST(CoroutineDriverSyncTest, ACancellableCallerGetsItsStopTokenBackFromASynchronousCall) {
  const PipelineRef p = GuardedPipeline();
  asio::io_context io;
  std::stop_source caller;
  CallContext ctx{.stop = caller.get_token()};
  std::stop_token seen;
  bool ok = false;
  asio::cancellation_signal cancel;
  asio::co_spawn(io, OneCall(p, ctx, seen, ok), asio::bind_cancellation_slot(cancel.slot(), asio::detached));
  EXPECT_EQ(io.run(), HandlersRun(p, 0));  // no more handlers than a coroutine that makes no call
  EXPECT_TRUE(ok);
  EXPECT_NE(seen, caller.get_token());  // the call's own
  EXPECT_EQ(ctx.stop, caller.get_token());
}

asio::awaitable<void> MarkedCalls(const PipelineRef& p, int calls, std::vector<std::uintptr_t>& depths) {
  CallContext ctx;
  auto attempt = [&depths](CallContext&) -> asio::awaitable<Result<int>> {
    depths.push_back(StackDepth());
    co_return 7;
  };
  for (int i = 0; i < calls; ++i) (void)co_await p.Execute(ctx, attempt);
}

// The attempt's completion runs inline and the caller does not suspend: a
// loop of synchronous calls must not nest one call inside the last. 10,000
// calls keep the test fast; nesting would move the attempt deeper each
// call (hundreds of bytes at least), so an unchanged depth shows any count
// of calls runs in the same stack.
TEST(CoroutineDriverSyncTest, ALoopOfSynchronousCallsDoesNotGrowTheStack) {
  const PipelineRef p = GuardedPipeline();
  asio::io_context io;
  std::vector<std::uintptr_t> depths;
  asio::co_spawn(io, MarkedCalls(p, 10'000, depths), asio::detached);
  io.run();
  ASSERT_EQ(depths.size(), 10'000u);
  const auto [lo, hi] = std::minmax_element(depths.begin(), depths.end());
  EXPECT_EQ(*hi - *lo, 0u);
}

// A call that waits is resumed from a timer's handler, inside the attempt
// that ended it; the caller's next call then starts there. Depths must
// settle after the first call, not grow with every call.
TEST(CoroutineDriverSyncTest, ALoopOfCallsResumedByTimersDoesNotGrowTheStack) {
  AsioDriver driver;
  PipelineRef p = Unwrap(PipelineBuilder(driver.options())
                             .AddRetry({.max_attempts = 2, .backoff = {.base = 10ms, .jitter = Jitter::kNone}})
                             .Build());
  std::vector<std::uintptr_t> depths;  // of each call's first attempt
  int answered = 0;
  auto calls = [&]() -> asio::awaitable<void> {
    CallContext ctx;
    for (int i = 0; i < 1'000; ++i) {
      Result<int> r = co_await p.Execute(ctx, [&](CallContext& c) -> asio::awaitable<Result<int>> {
        if (c.attempt == 1) depths.push_back(StackDepth());
        co_return c.attempt == 1 ? Result<int>(kUnavailable) : Result<int>(7);
      });
      if (r.ok()) ++answered;
    }
  };
  bool ended = false;
  asio::co_spawn(driver.io(), calls(), [&](std::exception_ptr e) { ended = true, Rethrow(e); });
  driver.RunUntil(ended);
  EXPECT_EQ(answered, 1'000);
  ASSERT_EQ(depths.size(), 1'000u);
  const auto [lo, hi] = std::minmax_element(depths.begin() + 2, depths.end());
  EXPECT_EQ(*hi - *lo, 0u);
}

struct Race {
  static constexpr int kCalls = 2'000;
  std::vector<std::stop_source> stops = std::vector<std::stop_source>(kCalls);
  std::atomic<int> armed{0};  // backoffs armed so far: one per call
  std::vector<int> answers = std::vector<int>(kCalls, 0);
  std::vector<StatusCode> codes = std::vector<StatusCode>(kCalls, StatusCode::kOk);
};

// Timers that never fire (every wait here is an hour) and count the waits
// armed, so another thread can stop a call the moment its backoff starts.
class CountingArms final : public AsyncTimers {
 public:
  explicit CountingArms(std::atomic<int>& armed) : armed_(armed) {}
  Clock& clock() const noexcept override { return Clock::Real(); }
  AsyncTimerHandle Schedule(TimePoint, Callback, void*) noexcept override {
    armed_.fetch_add(1, std::memory_order_release);
    return AsyncTimerHandle{.armed = true};
  }
  bool Cancel(AsyncTimerHandle& h) noexcept override {
    h.armed = false;
    return true;  // it never runs
  }

 private:
  std::atomic<int>& armed_;
};

asio::awaitable<void> CallsStoppedElsewhere(const PipelineRef& p, Race& race) {
  for (int i = 0; i < Race::kCalls; ++i) {
    CallContext ctx{.stop = race.stops[i].get_token()};
    Result<int> r =
        co_await p.Execute(ctx, [](CallContext&) -> asio::awaitable<Result<int>> { co_return kUnavailable; });
    ++race.answers[i];
    race.codes[i] = r.status().code();
  }
}

// Each call fails its attempt and arms an hour's backoff; another thread
// stops it once the backoff is armed, after a spin of a different length
// each call. So the stop, which ends the call on that thread, lands at
// every point from the driver's start returning to the caller suspended
// and after: whichever thread drops the call's last token, the caller
// resumes exactly once. Run under TSan too.
TEST(CoroutineDriverSyncTest, ACallEndedOnAnotherThreadWhileTheCallerSuspendsAnswersOnce) {
  PipelineRef p = Unwrap(
      PipelineBuilder()
          .AddRetry({.max_attempts = 2,
                     .backoff = {.kind = BackoffKind::kConstant, .base = 1h, .cap = 1h, .jitter = Jitter::kNone}})
          .Build());
  Race race;
  std::thread stopper([&race] {
    for (int i = 0; i < Race::kCalls; ++i) {
      while (race.armed.load(std::memory_order_acquire) <= i) {
      }
      for (int spin = 0; spin < i % 200; ++spin) (void)race.armed.load(std::memory_order_relaxed);  // a delay kept
      race.stops[i].request_stop();
    }
  });
  asio::io_context io;
  CountingArms timers(race.armed);
  UseTimers(io, timers);
  http::testkit::RunBounded(io, CallsStoppedElsewhere(p, race));
  stopper.join();
  for (int i = 0; i < Race::kCalls; ++i) {
    ASSERT_EQ(race.answers[i], 1) << "call " << i;
    EXPECT_NE(race.codes[i], StatusCode::kOk) << "call " << i;
  }
}

// A queued call gets its bulkhead slot on the thread that gives the slot
// back, here not the io_context's: its attempt must still run on the
// executor (the awaiting coroutine's thread), never on the releasing one.
TEST(CoroutineDriverSyncTest, AnAttemptStartedOnAnotherThreadRunsOnTheExecutor) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1, .max_wait = 1h})));
  PipelineRef p = Unwrap(PipelineBuilder().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(Clock::Real().Now()));
  std::thread::id attempt_thread;
  std::optional<Result<int>> got;
  auto call = [&]() -> asio::awaitable<void> {
    CallContext ctx;
    got = co_await p.Execute(ctx, [&](CallContext&) -> asio::awaitable<Result<int>> {
      attempt_thread = std::this_thread::get_id();
      co_return 1;
    });
  };
  std::thread releaser([&] {
    EXPECT_TRUE(WaitUntil([&] { return bulkhead->stats().waiting > 0; }, "the call's queueing"));
    held.Release();
  });
  asio::io_context io;
  http::testkit::RunBounded(io, call());
  releaser.join();
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok()) << got->status().ToString();
  EXPECT_EQ(attempt_thread, std::this_thread::get_id());
}

}  // namespace
}  // namespace stormguard::testkit
