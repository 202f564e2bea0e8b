// What only the coroutine driver does: exceptions from coroutines, Asio
// cancellation in both directions, waits without a thread, refusals.
#include "stormguard/asio/coroutine_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/cancellation_signal.hpp>
#include <stdexcept>

#include "asio_driver.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

const Status kDown = Status::Unavailable("down");

// One call on the driver's io_context, run until it is answered.
struct Call {
  std::optional<Result<int>> result;
  Duration took{};
  bool ended = false;
};

class CoroutineDriverTest : public ::testing::Test {
 protected:
  AsioDriver driver;
  PipelineBuilder Builder() { return PipelineBuilder(driver.options()); }
  TimePoint Now() { return driver.clock().Now(); }

  // Starts `p.Execute(ctx, attempt)` in a coroutine whose cancellation
  // slot is `cancel`'s (when given).
  template <class A>
  void Spawn(const PipelineRef& p, CallContext& ctx, A attempt, Call& out,
             asio::cancellation_signal* cancel = nullptr) {
    if (cancel != nullptr) {
      asio::co_spawn(driver.io(), Run(p, ctx, attempt, out), asio::bind_cancellation_slot(cancel->slot(), Rethrow));
    } else {
      asio::co_spawn(driver.io(), Run(p, ctx, attempt, out), Rethrow);
    }
  }
  // A function, not a lambda: the coroutine keeps its arguments.
  template <class A>
  static asio::awaitable<void> Run(const PipelineRef& p, CallContext& ctx, A attempt, Call& out) {
    const TimePoint begin = VirtualClock::current->Now();
    out.result = co_await p.Execute(ctx, attempt);
    out.took = VirtualClock::current->Now() - begin;
    out.ended = true;
  }
};

// Asio's || would report the timer after 300 ms: the attempt's own error
// must come back when it is thrown.
TEST_F(CoroutineDriverTest, AnAttemptThatThrowsReportsItsOwnErrorWhenItThrows) {
  PipelineRef p = Unwrap(Builder().AddTimeout(300ms).Build());
  CallContext ctx;
  Call call;
  Spawn(
      p, ctx,
      [](CallContext&) -> asio::awaitable<Result<int>> {
        co_await AsioDriver::Wait(10ms, true);
        throw std::runtime_error("inventory exploded");
      },
      call);
  driver.RunUntil(call.ended);
  EXPECT_NE(call.result->status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(call.result->status().message(), HasSubstr("inventory exploded"));
  EXPECT_EQ(call.took, 10ms);
}

// The timeout's stop reaches the operation the attempt awaits, through
// its cancellation slot: the wait ends with operation_aborted at 50 ms.
TEST_F(CoroutineDriverTest, ATimeoutCancelsTheAwaitedOperation) {
  PipelineRef p = Unwrap(Builder().AddTimeout(50ms).Build());
  CallContext ctx;
  Call call;
  std::error_code seen;
  TimePoint seen_at{};
  const TimePoint begin = Now();
  Spawn(
      p, ctx,
      [&](CallContext&) -> asio::awaitable<Result<int>> {
        VirtualTimer t(co_await asio::this_coro::executor, VirtualClock::now() + 1s);
        try {
          co_await t.async_wait(asio::use_awaitable);  // throws when cancelled
        } catch (const std::system_error& e) {
          seen = e.code();
          seen_at = Now();
          throw;
        }
        co_return 1;
      },
      call);
  driver.RunUntil(call.ended);
  EXPECT_EQ(seen, asio::error::operation_aborted);
  EXPECT_EQ(seen_at - begin, 50ms);
  EXPECT_EQ(call.result->status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(call.took, 50ms);
}

// An attempt's own cancellation, not the timeout's judgement: CANCELLED.
TEST_F(CoroutineDriverTest, AnAbortedOperationIsReportedCancelled) {
  PipelineRef p = Unwrap(Builder().AddRetry({.max_attempts = 1}).Build());
  std::stop_source caller;
  CallContext ctx{.stop = caller.get_token()};
  Call call;
  driver.clock().At(Now() + 20ms, [&] { caller.request_stop(); });
  Spawn(
      p, ctx,
      [](CallContext&) -> asio::awaitable<Result<int>> {
        VirtualTimer t(co_await asio::this_coro::executor, VirtualClock::now() + 1s);
        co_await t.async_wait(asio::use_awaitable);
        co_return 1;
      },
      call);
  driver.RunUntil(call.ended);
  EXPECT_EQ(call.result->status().code(), StatusCode::kCancelled);
  EXPECT_EQ(call.took, 20ms);
}

// Cancelling the coroutine that awaits the call stops the call: here in
// the middle of a 1 s backoff.
TEST_F(CoroutineDriverTest, CancellingTheAwaitingCoroutineStopsTheCall) {
  PipelineRef p =
      Unwrap(Builder().AddRetry({.max_attempts = 3, .backoff = {.base = 1s, .jitter = Jitter::kNone}}).Build());
  CallContext ctx;
  Call call;
  int attempts = 0;
  asio::cancellation_signal cancel;
  driver.clock().At(Now() + 20ms, [&] { cancel.emit(asio::cancellation_type::terminal); });
  Spawn(
      p, ctx,
      [&](CallContext&) -> asio::awaitable<Result<int>> {
        ++attempts;
        co_return kDown;
      },
      call, &cancel);
  driver.RunUntil(call.ended);
  EXPECT_EQ(call.result->status().code(), StatusCode::kCancelled);
  EXPECT_EQ(call.took, 20ms);
  EXPECT_EQ(attempts, 1);
  EXPECT_FALSE(ctx.stop.stop_possible());  // the caller's (empty) token is back
}

// Three calls queue on a one-slot bulkhead, all on this one thread: each
// waits as a suspended coroutine and runs when the slot frees.
TEST_F(CoroutineDriverTest, ABulkheadQueueWaitSuspendsWithoutAThread) {
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 1, .max_wait = 1s})));
  PipelineRef p = Unwrap(Builder().AddBulkhead(bulkhead).Build());
  BulkheadPermit held = Unwrap(bulkhead->TryAcquire(Now()));
  const TimePoint begin = Now();
  std::vector<TimePoint> starts;
  CallContext ctx[3];
  Call calls[3];
  auto attempt = [&](CallContext&) -> asio::awaitable<Result<int>> {
    starts.push_back(Now());
    co_await AsioDriver::Wait(10ms, true);
    co_return 1;
  };
  for (int i = 0; i < 3; ++i) Spawn(p, ctx[i], attempt, calls[i]);
  driver.io().poll();  // returns: nothing blocks the thread
  EXPECT_EQ(bulkhead->stats().waiting, 3);
  driver.clock().At(Now() + 40ms, [&] { held.Release(); });
  driver.RunUntil(calls[2].ended);
  for (const Call& c : calls)
    EXPECT_TRUE(c.ended && c.result->ok()) << (c.ended ? c.result->status().ToString() : "pending");
  ASSERT_EQ(starts.size(), 3u);
  EXPECT_EQ(starts[0] - begin, 40ms);
  EXPECT_EQ(starts[1] - begin, 50ms);
  EXPECT_EQ(starts[2] - begin, 60ms);
  EXPECT_EQ(bulkhead->stats().in_use, 0);
}

class BlockingOnly final : public Stage {
 public:
  std::string_view name() const noexcept override { return "audit"; }
  Status Execute(CallContext& ctx, Next next) const override { return next(ctx); }
};

TEST_F(CoroutineDriverTest, AStageWithoutAnAsynchronousFormIsRefused) {
  PipelineRef p = Unwrap(Builder().AddTimeout(1s).Add(std::make_shared<BlockingOnly>()).Build());
  CallContext ctx;
  Call call;
  int attempts = 0;
  Spawn(
      p, ctx,
      [&](CallContext&) -> asio::awaitable<Result<int>> {
        ++attempts;
        co_return 1;
      },
      call);
  driver.RunUntil(call.ended);
  EXPECT_EQ(call.result->status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(call.result->status().message(), HasSubstr("audit"));
  EXPECT_EQ(attempts, 0);
}

TEST_F(CoroutineDriverTest, AStatusAttemptYieldsAStatus) {
  PipelineRef p =
      Unwrap(Builder().AddRetry({.max_attempts = 2, .backoff = {.base = 10ms, .jitter = Jitter::kNone}}).Build());
  CallContext ctx;
  std::optional<Status> got;
  int attempts = 0;
  auto run = [&]() -> asio::awaitable<void> {
    got = co_await p.Execute(ctx, [&](CallContext& c) -> asio::awaitable<Status> {
      ++attempts;
      co_return c.attempt == 1 ? kDown : Status::Ok();
    });
  };
  bool ended = false;
  asio::co_spawn(driver.io(), run(), [&](std::exception_ptr e) { ended = true, Rethrow(e); });
  driver.RunUntil(ended);
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok()) << got->ToString();
  EXPECT_EQ(attempts, 2);
}

}  // namespace
}  // namespace stormguard::testkit
