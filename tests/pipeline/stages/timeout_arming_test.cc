// When the asynchronous timeout arms its timer: only for an inner part
// still running once its start has returned, whichever thread answers it
// and however soon. Every timer armed is cancelled or fires; none is armed
// for a call that has answered.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <thread>

#include "pipeline/pipeline_test_util.h"

namespace stormguard::timeout_arming_test {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

// The manual environment's timers, counting what the pipeline arms and
// what it cancels before it fires. Thread-safe, as the contract asks.
class CountingTimers final : public AsyncTimers {
 public:
  explicit CountingTimers(TimerService& base) : base_(base) {}
  Clock& clock() const noexcept override { return base_.clock(); }
  AsyncTimerHandle Schedule(TimePoint t, Callback callback, void* arg) noexcept override {
    scheduled.fetch_add(1);
    return base_.Schedule(t, callback, arg);
  }
  bool Cancel(AsyncTimerHandle& h) noexcept override {
    const bool was_armed = h.armed;
    const bool never_ran = base_.Cancel(h);
    if (was_armed && never_ran) cancelled.fetch_add(1);
    return never_ran;
  }
  std::atomic<int> scheduled{0}, cancelled{0};

 private:
  TimerServiceTimers base_;
};

TEST(TimeoutArmingTest, ACallAnsweredInsideItsStartArmsNoTimer) {
  ManualEnv env;
  CountingTimers timers(*env.timers);
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).AddAttemptTimeout(500ms).Build());
  std::optional<Status> got;
  CallContext ctx;
  p.ExecuteAsync(
      timers, ctx, [](CallContext&, Completion<Status> done) { done(Status::Ok()); }, [&](Status s) { got = s; });
  ASSERT_TRUE(got.has_value());
  EXPECT_TRUE(got->ok());
  EXPECT_EQ(timers.scheduled.load(), 0);
}

TEST(TimeoutArmingTest, AnInnerPartStillRunningGetsItsTimerAndTimesOut) {
  ManualEnv env;
  CountingTimers timers(*env.timers);
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1s).Build());
  std::optional<Completion<Status>> pending;
  std::optional<Status> got;
  CallContext ctx;
  p.ExecuteAsync(
      timers, ctx,
      [&](CallContext& c, Completion<Status> done) {
        EXPECT_EQ(timers.scheduled.load(), 0);  // not while the start runs
        EXPECT_FALSE(c.stop.stop_requested());
        pending.emplace(std::move(done));
      },
      [&](Status s) { got = s; });
  EXPECT_EQ(timers.scheduled.load(), 1);
  env.AdvanceAndFire(999ms);
  EXPECT_FALSE(got.has_value());
  env.AdvanceAndFire(1ms);  // the deadline from the call's start, not from the arming
  (*pending)(Status::Cancelled("stopped"));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->code(), StatusCode::kDeadlineExceeded);
}

// The attempt is answered from another thread after a spin of a different
// length each call, so the answer lands before, during and after the start
// arms the timer. Each call answers once, and every timer armed was
// cancelled (none fires: they are an hour away). Run under TSan too.
TEST(TimeoutArmingTest, AnAnswerFromAnotherThreadRacingTheArmingLeavesNoTimer) {
  ManualEnv env;
  CountingTimers timers(*env.timers);
  PipelineRef p = Unwrap(PipelineBuilder(env.options()).AddTimeout(1h).AddAttemptTimeout(1h).Build());
  constexpr int kCalls = 2000;
  std::atomic<int> handed{0}, answered{0}, wrong{0};
  std::optional<Completion<Status>> slot;  // handed to the answering thread
  std::atomic<bool> full{false};
  std::thread answerer([&] {
    for (int i = 0; i < kCalls; ++i) {
      while (!full.load(std::memory_order_acquire)) std::this_thread::yield();
      Completion<Status> done = std::move(*slot);
      slot.reset();
      full.store(false, std::memory_order_release);
      for (int spin = 0; spin < (i * 7) % 300; ++spin) (void)handed.load(std::memory_order_relaxed);
      done(Status::Ok());
    }
  });
  for (int i = 0; i < kCalls; ++i) {
    CallContext ctx;
    std::atomic<bool> done_once{false};
    p.ExecuteAsync(
        timers, ctx,
        [&](CallContext&, Completion<Status> done) {
          slot.emplace(std::move(done));
          handed.fetch_add(1);
          full.store(true, std::memory_order_release);
        },
        [&](Status s) {
          if (!s.ok() || done_once.exchange(true)) wrong.fetch_add(1);
          answered.fetch_add(1);
        });
    while (!done_once.load()) std::this_thread::yield();  // ctx lives until the call answers
  }
  answerer.join();
  EXPECT_EQ(answered.load(), kCalls);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(timers.scheduled.load(), timers.cancelled.load()) << "a timer armed for a call that had answered";
  EXPECT_GT(timers.scheduled.load(), 0) << "no call was still running when its start returned";
}

}  // namespace
}  // namespace stormguard::timeout_arming_test
