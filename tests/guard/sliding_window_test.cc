#include "stormguard/guard/sliding_window.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <optional>
#include <thread>
#include <vector>

#include "guard/window_test_util.h"
#include "testkit/time_points.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

using testkit::kT0;  // on a second boundary

constexpr CallRecord kOkCall{};
constexpr CallRecord kFailedCall{.failure = true, .slow = false};
constexpr CallRecord kSlow{.failure = false, .slow = true};
constexpr CallRecord kSlowFail{.failure = true, .slow = true};

struct Step {
  Duration at;  // since kT0
  CallRecord call;
  WindowCounts expect;
  std::optional<double> failure_rate;
  std::optional<double> slow_call_rate;
};

void ExpectMetrics(const WindowMetrics& m, const Step& s, int step) {
  SCOPED_TRACE("step " + std::to_string(step));
  testkit::ExpectWindowMetrics(m, s.expect, s.failure_rate, s.slow_call_rate);
}

void RunScript(SlidingWindow& w, const std::vector<Step>& script) {
  for (std::size_t i = 0; i < script.size(); ++i) {
    const WindowUpdate u = w.Record(kT0 + script[i].at, script[i].call);
    EXPECT_EQ(u.counts, script[i].expect) << "step " << i;
    ExpectMetrics(w.Metrics(kT0 + script[i].at), script[i], static_cast<int>(i));
  }
}

// The shared check must be able to fail, or the scripts below prove nothing.
TEST(SlidingWindowTest, MetricsCheckFailsOnAWrongCountOrRate) {
  const WindowMetrics m = WindowMetrics::From({.calls = 4, .failures = 1, .slow_calls = 2}, 4);
  testkit::ExpectWindowMetrics(m, {4, 1, 2}, 0.25, 0.5);
  EXPECT_NONFATAL_FAILURE(testkit::ExpectWindowMetrics(m, {4, 2, 2}, 0.25, 0.5), "failures");
  EXPECT_NONFATAL_FAILURE(testkit::ExpectWindowMetrics(m, {4, 1, 2}, 0.25, 0.49), "slow_call_rate");
  EXPECT_FATAL_FAILURE(testkit::ExpectWindowMetrics(WindowMetrics::From({.calls = 4, .failures = 1, .slow_calls = 2},
                                                                        5),
                                                    {4, 1, 2}, 0.25, 0.5),
                       "has_value");
}

TEST(SlidingWindowTest, KindNames) {
  EXPECT_EQ(WindowKindName(WindowKind::kCountBased), "count_based");
  EXPECT_EQ(WindowKindName(WindowKind::kTimeBased), "time_based");
  EXPECT_EQ(SlidingWindow::Create(WindowKind::kTimeBased, 10, 1)->kind(), WindowKind::kTimeBased);
}

TEST(CountWindowTest, KeepsTheLastNCallsAndReportsRatesFromTheMinimum) {
  CountWindow w(/*size=*/4, /*minimum_calls=*/2);
  const double third = 1.0 / 3;
  RunScript(w, {
                   {0s, kOkCall, {1, 0, 0}, std::nullopt, std::nullopt},  // below the minimum
                   {0s, kFailedCall, {2, 1, 0}, 0.5, 0.0},
                   {0s, kSlow, {3, 1, 1}, third, third},
                   {0s, kSlowFail, {4, 2, 2}, 0.5, 0.5},
                   {0s, kOkCall, {4, 2, 2}, 0.5, 0.5},    // evicts call 1 (ok)
                   {0s, kOkCall, {4, 1, 2}, 0.25, 0.5},   // evicts call 2 (failure)
                   {0s, kOkCall, {4, 1, 1}, 0.25, 0.25},  // evicts call 3 (slow)
                   {0s, kOkCall, {4, 0, 0}, 0.0, 0.0},    // evicts call 4 (slow failure)
               });
}

TEST(CountWindowTest, SuccessIntoACleanFullWindowChangesNothing) {
  CountWindow w(3, 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.Record(kT0, kOkCall).may_trip);
  const WindowUpdate u = w.Record(kT0, kOkCall);
  EXPECT_FALSE(u.may_trip);
  EXPECT_EQ(u.counts, (WindowCounts{3, 0, 0}));
  // A failure still gets in, and three successes push it out again.
  EXPECT_EQ(w.Record(kT0, kFailedCall).counts, (WindowCounts{3, 1, 0}));
  for (int i = 0; i < 3; ++i) w.Record(kT0, kOkCall);
  EXPECT_EQ(w.Counts(kT0), (WindowCounts{3, 0, 0}));
}

TEST(CountWindowTest, ResetForgetsEverything) {
  CountWindow w(5, 1);
  for (int i = 0; i < 7; ++i) w.Record(kT0, kSlowFail);
  EXPECT_EQ(w.Counts(kT0), (WindowCounts{5, 5, 5}));
  w.Reset();
  EXPECT_EQ(w.Counts(kT0), (WindowCounts{0, 0, 0}));
  EXPECT_FALSE(w.Metrics(kT0).failure_rate.has_value());
  EXPECT_EQ(w.Record(kT0, kFailedCall).counts, (WindowCounts{1, 1, 0}));
}

TEST(TimeWindowTest, KeepsTheLastNSecondsInOneSecondBuckets) {
  TimeWindow w(/*size_seconds=*/3, /*minimum_calls=*/2);
  const double third = 1.0 / 3;
  RunScript(w, {
                   {0ms, kFailedCall, {1, 1, 0}, std::nullopt, std::nullopt},
                   {500ms, kOkCall, {2, 1, 0}, 0.5, 0.0},
                   {1200ms, kSlow, {3, 1, 1}, third, third},
                   {2900ms, kSlowFail, {4, 2, 2}, 0.5, 0.5},
                   // Second 3 pushes second 0 (a failure and a success) out.
                   {3000ms, kOkCall, {3, 1, 2}, third, 2 * third},
               });
  // Reading retires seconds too: at 4 s, second 1 (the slow call) is gone.
  ExpectMetrics(w.Metrics(kT0 + 4s), {0s, kOkCall, {2, 1, 1}, 0.5, 0.5}, 5);
  ExpectMetrics(w.Metrics(kT0 + 10s), {0s, kOkCall, {0, 0, 0}, std::nullopt, std::nullopt}, 6);
  w.Record(kT0 + 10s, kOkCall);
  EXPECT_EQ(w.Counts(kT0 + 10s), (WindowCounts{1, 0, 0}));
}

// A success cannot move a rate while no failure or slow call is in the
// window, so Record skips adding up every thread's stripe (counts empty).
TEST(TimeWindowTest, SuccessesSkipTheTotalsWhileNoBadCallIsInTheWindow) {
  TimeWindow w(3, 2);
  EXPECT_EQ(w.Record(kT0, kOkCall).may_trip, false);
  const WindowUpdate bad = w.Record(kT0 + 1s, kFailedCall);
  EXPECT_TRUE(bad.may_trip);
  EXPECT_EQ(bad.counts, (WindowCounts{2, 1, 0}));
  // Until second 1 leaves, a success is judged: it may bring the window to
  // its minimum number of calls.
  const WindowUpdate judged = w.Record(kT0 + 3s + 999ms, kOkCall);
  EXPECT_TRUE(judged.may_trip);
  EXPECT_EQ(judged.counts, (WindowCounts{2, 1, 0}));
  const WindowUpdate clean = w.Record(kT0 + 4s, kOkCall);
  EXPECT_FALSE(clean.may_trip);
  EXPECT_EQ(clean.counts, (WindowCounts{}));
  EXPECT_EQ(w.Counts(kT0 + 4s), (WindowCounts{2, 0, 0}));
}

TEST(TimeWindowTest, AGapLongerThanTheWindowEmptiesIt) {
  TimeWindow w(5, 1);
  for (int s = 0; s < 5; ++s) w.Record(kT0 + std::chrono::seconds(s), kFailedCall);
  EXPECT_EQ(w.Counts(kT0 + 4s), (WindowCounts{5, 5, 0}));
  w.Record(kT0 + 1h, kOkCall);
  EXPECT_EQ(w.Counts(kT0 + 1h), (WindowCounts{1, 0, 0}));
}

TEST(TimeWindowTest, ALateTimestampCountsInTheNewestSecond) {
  TimeWindow w(2, 1);
  w.Record(kT0 + 5s, kOkCall);
  w.Record(kT0 + 4s, kFailedCall);  // from a thread that read the clock a moment ago
  EXPECT_EQ(w.Counts(kT0 + 5s), (WindowCounts{2, 1, 0}));
  EXPECT_EQ(w.Counts(kT0 + 7s), (WindowCounts{0, 0, 0}));
}

// Deliberate: a call older than the whole window is dropped (the old
// locked window counted it in the newest second); its second has left the
// window, so it no longer belongs to what the breaker judges.
TEST(TimeWindowTest, ATimestampOlderThanTheWindowIsNotCounted) {
  TimeWindow w(2, 1);
  w.Record(kT0 + 5s, kOkCall);
  EXPECT_FALSE(w.Record(kT0, kFailedCall).may_trip);
  EXPECT_EQ(w.Counts(kT0 + 5s), (WindowCounts{1, 0, 0}));
}

// Deliberate: clocks start at or after their epoch (ManualClock at 1 h),
// so the counter's "before the epoch is time zero" replaced the old
// window's negative seconds.
TEST(TimeWindowTest, TimesBeforeTheClockEpochCountAsTimeZero) {
  TimeWindow w(2, 1);
  w.Record(TimePoint(-1500ms), kFailedCall);  // second 0
  w.Record(TimePoint(1500ms), kOkCall);       // second 1
  EXPECT_EQ(w.Counts(TimePoint(1999ms)), (WindowCounts{2, 1, 0}));
  EXPECT_EQ(w.Counts(TimePoint(2s)), (WindowCounts{1, 0, 0}));
}

TEST(TimeWindowTest, AWindowLongerThan512SecondsUsesWiderBuckets) {
  TimeWindow w(1024, 1);  // 512 buckets of 2 s
  w.Record(kT0 + 1s, kFailedCall);
  EXPECT_EQ(w.Counts(kT0 + 1023s), (WindowCounts{1, 1, 0}));
  EXPECT_EQ(w.Counts(kT0 + 1024s), (WindowCounts{0, 0, 0})) << "left with its 2 s bucket";
}

TEST(TimeWindowTest, ResetForgetsEverything) {
  TimeWindow w(10, 1);
  for (int s = 0; s < 4; ++s) w.Record(kT0 + std::chrono::seconds(s), kSlowFail);
  w.Reset();
  EXPECT_EQ(w.Counts(kT0 + 4s), (WindowCounts{0, 0, 0}));
  EXPECT_EQ(w.Record(kT0 + 4s, kSlow).counts, (WindowCounts{1, 0, 1}));
}

TEST(SlidingWindowTest, ConstructorsClampSizes) {
  CountWindow c(0, 0);
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.minimum_calls(), 1);
  TimeWindow t(1'000'000, 5);
  EXPECT_EQ(t.size(), SlidingWindow::kMaxTimeSeconds);
}

// Many threads recording, one resetting now and then: once they are done,
// the totals must still match the slots (no drift), so N fresh failures
// read exactly N.
TEST(CountWindowTest, ConcurrentRecordsAndResetsLeaveNoDrift) {
  constexpr int kSize = 64;
  CountWindow w(kSize, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&w, t] {
      for (int i = 0; i < 20000; ++i) {
        const CallRecord c{.failure = (i + t) % 3 == 0, .slow = (i + t) % 5 == 0};
        w.Record(kT0, c);
        if (t == 0 && i % 1000 == 0) w.Reset();
      }
    });
  }
  for (auto& th : threads) th.join();
  const WindowCounts mid = w.Counts(kT0);
  EXPECT_LE(mid.calls, kSize);
  EXPECT_LE(mid.failures, mid.calls);
  for (int i = 0; i < kSize; ++i) w.Record(kT0, kFailedCall);
  EXPECT_EQ(w.Counts(kT0), (WindowCounts{kSize, kSize, 0}));
  for (int i = 0; i < kSize; ++i) w.Record(kT0, kOkCall);
  EXPECT_EQ(w.Counts(kT0), (WindowCounts{kSize, 0, 0}));
}

TEST(TimeWindowTest, ConcurrentRecordsAcrossSecondsCountExactly) {
  TimeWindow w(10, 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&w, t] {
      for (int i = 0; i < 10000; ++i) {
        // Seconds 0..4, out of order across threads: all inside the window.
        const TimePoint now = kT0 + std::chrono::seconds((i + t) % 5);
        w.Record(now, {.failure = i % 4 == 0, .slow = i % 10 == 0});
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(w.Counts(kT0 + 4s), (WindowCounts{40000, 10000, 4000}));
  EXPECT_EQ(w.Counts(kT0 + 60s), (WindowCounts{0, 0, 0}));
}

}  // namespace
}  // namespace stormguard
