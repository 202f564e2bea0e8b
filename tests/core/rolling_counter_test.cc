#include "stormguard/core/rolling_counter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "core/thread_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::RunConcurrently;
using ::testing::UnorderedElementsAre;

const TimePoint kT0 = TimePoint(1h);  // a bucket boundary for any whole-second width

RollingCounter Make(RollingCounterOptions o = {}) {
  auto w = RollingCounter::Create(o);
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return std::move(w).value();
}

TEST(RollingCounterTest, ValidateNamesEveryBadField) {
  EXPECT_THAT((RollingCounterOptions{.window = 0s, .buckets = 0, .stripes = -1}.Validate()),
              UnorderedElementsAre("window: must be positive", "buckets: must be in [1, 512]",
                                   "stripes: must be in [0, 64]"));
  EXPECT_THAT((RollingCounterOptions{.window = 5ns, .buckets = 10}.Validate()),
              UnorderedElementsAre("window: must be at least 1ns per bucket"));
  auto bad = RollingCounter::Create({.buckets = 513});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(RollingCounterOptions{}.Validate().empty());
}

TEST(RollingCounterTest, CountsBothKindsOfEventWithinTheWindow) {
  RollingCounter w = Make();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.Add(kT0, {1, 0}));
  EXPECT_TRUE(w.Add(kT0 + 2500ms, {0, 2}));
  EXPECT_EQ(w.Sum(kT0 + 3s), (RollingCounts{3, 2}));
  EXPECT_EQ(w.bucket_width(), 1s);
  EXPECT_EQ(w.buckets(), 10);
}

TEST(RollingCounterTest, OldBucketsSlideOutOneAtATime) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  w.Add(kT0, {1, 0});
  w.Add(kT0 + 1s, {0, 1});
  EXPECT_EQ(w.Sum(kT0 + 9s), (RollingCounts{1, 1}));
  EXPECT_EQ(w.Sum(kT0 + 10s), (RollingCounts{0, 1}));
  EXPECT_EQ(w.Sum(kT0 + 11s), (RollingCounts{0, 0}));
}

TEST(RollingCounterTest, AnEventCountsUntilItsWholeBucketHasLeft) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  w.Add(kT0 + 999ms, {1, 0});  // late in its bucket: counted for only 9.001 s
  EXPECT_EQ(w.Sum(kT0 + 9s + 999ms)[0], 1);
  EXPECT_EQ(w.Sum(kT0 + 10s)[0], 0);
}

TEST(RollingCounterTest, ReusedBucketStartsFromZero) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  w.Add(kT0, {5, 5});
  w.Add(kT0 + 16s, {1, 0});  // the ring has 16 buckets: same slot as kT0
  EXPECT_EQ(w.Sum(kT0 + 16s), (RollingCounts{1, 0}));
}

TEST(RollingCounterTest, RefusesEventsOlderThanTheWindow) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  w.Add(kT0 + 20s, {1, 0});
  EXPECT_FALSE(w.Add(kT0 + 10s, {1, 0}));
  EXPECT_TRUE(w.Add(kT0 + 11s, {1, 0}));  // the oldest bucket still in the window
  EXPECT_EQ(w.Sum(kT0 + 20s), (RollingCounts{2, 0}));
  EXPECT_EQ(w.Sum(kT0), (RollingCounts{}));  // asking about buckets long reused
}

TEST(RollingCounterTest, TakeBackUndoesAnAddAndSumsNeverGoNegative) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  EXPECT_TRUE(w.Add(kT0, {0, 1}));
  EXPECT_TRUE(w.Add(kT0, {0, -1}));
  EXPECT_EQ(w.Sum(kT0), (RollingCounts{0, 0}));
  EXPECT_TRUE(w.Add(kT0, {-1, 0}));
  EXPECT_EQ(w.Sum(kT0), (RollingCounts{0, 0}));
}

TEST(RollingCounterTest, ReaderBehindTheNewestBucketSeesItsOwnWindow) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  w.Add(kT0, {1, 0});
  w.Add(kT0 + 5s, {0, 1});
  EXPECT_EQ(w.Sum(kT0 + 4s), (RollingCounts{1, 0})) << "the later failure is not in this window";
  EXPECT_EQ(w.Sum(kT0 + 5s), (RollingCounts{1, 1}));
}

TEST(RollingCounterTest, ResetForgetsEveryBucketButNotWhatComesAfter) {
  RollingCounter w = Make({.window = 10s, .buckets = 10});
  for (int s = 0; s < 4; ++s) w.Add(kT0 + std::chrono::seconds(s), {1, 2});
  w.Reset();
  EXPECT_EQ(w.Sum(kT0 + 3s), (RollingCounts{0, 0}));
  EXPECT_EQ(w.Sum(kT0 + 2s), (RollingCounts{0, 0})) << "a reader behind the newest bucket too";
  w.Add(kT0 + 3s, {1, 0});
  w.Add(kT0 + 5s, {0, 1});
  EXPECT_EQ(w.Sum(kT0 + 5s), (RollingCounts{1, 1}));
  EXPECT_EQ(w.Sum(kT0 + 13s), (RollingCounts{0, 1}));
}

TEST(RollingCounterTest, CountsAsManyKindsAsItIsGiven) {
  auto w = BasicRollingCounter<3>::Create({.window = 2s, .buckets = 2});
  ASSERT_TRUE(w.ok());
  w->Add(kT0, {1, 1, 0});
  w->Add(kT0 + 1s, {1, 0, 1});
  EXPECT_EQ(w->Sum(kT0 + 1s), (BasicRollingCounter<3>::Counts{2, 1, 1}));
  EXPECT_EQ(w->Sum(kT0 + 2s), (BasicRollingCounter<3>::Counts{1, 0, 1}));
}

TEST(RollingCounterTest, TimesBeforeTheEpochCountAsTimeZero) {
  RollingCounter w = Make();
  EXPECT_TRUE(w.Add(kInfinitePast, {1, 0}));
  EXPECT_EQ(w.Sum(TimePoint(0ns))[0], 1);
}

// Adds on a thread whose stripe differs from the calling thread's.
void AddOnAnotherStripe(RollingCounter& w, TimePoint at, int first, int second) {
  const std::size_t mine = ThreadStripe() % static_cast<std::size_t>(w.stripes());
  bool done = false;
  while (!done) {
    std::thread([&] {
      if (ThreadStripe() % static_cast<std::size_t>(w.stripes()) == mine) return;
      done = w.Add(at, {first, second});
    }).join();
  }
}

// A bucket tag repeats every 1024 buckets. Whatever the idle gap, a stripe
// that no thread has touched since must not bring its old counts back.
TEST(RollingCounterTest, IdleStripesNeverComeBackAfterAnyGap) {
  for (Duration gap : {Duration(16s), Duration(1024s), Duration(4096s), Duration(1024s * 7 + 3s)}) {
    RollingCounter w = Make({.window = 10s, .buckets = 10, .stripes = 64});
    AddOnAnotherStripe(w, kT0, 7, 7);
    w.Add(kT0 + gap, {1, 0});
    EXPECT_EQ(w.Sum(kT0 + gap), (RollingCounts{1, 0})) << "gap " << gap.count();
  }
}

TEST(RollingCounterTest, ConcurrentAddsAreNeverLostEvenAcrossBuckets) {
  // 4 threads, 2 stripes (shared), each crossing the same 5 buckets at its
  // own pace: which bucket a racing event lands in may shift by one, but
  // the window that holds them all has every one.
  RollingCounter w = Make({.window = 10s, .buckets = 10, .stripes = 2});
  constexpr int kThreads = 4;
  constexpr int kPerBucket = 20'000;
  RunConcurrently(kThreads, [&w](int t) {
    for (int b = 0; b < 5; ++b) {
      for (int i = 0; i < kPerBucket; ++i) {
        ASSERT_TRUE(w.Add(kT0 + std::chrono::seconds(b), {t % 2 == 0 ? 1 : 0, t % 2 == 0 ? 0 : 1}));
      }
    }
  });
  EXPECT_EQ(w.Sum(kT0 + 4s), (RollingCounts{2 * 5 * kPerBucket, 2 * 5 * kPerBucket}));
}

TEST(RollingCounterTest, ConcurrentAddsWithinEachBucketSlideOutExactly) {
  RollingCounter w = Make({.window = 10s, .buckets = 10, .stripes = 2});
  for (int b = 0; b < 5; ++b) {
    RunConcurrently(4, [&w, b](int) {
      for (int i = 0; i < 10'000; ++i) w.Add(kT0 + std::chrono::seconds(b), {1, 1});
    });
  }
  EXPECT_EQ(w.Sum(kT0 + 4s), (RollingCounts{200'000, 200'000}));
  EXPECT_EQ(w.Sum(kT0 + 13s), (RollingCounts{40'000, 40'000})) << "only the bucket at +4 s is left";
}

}  // namespace
}  // namespace stormguard
