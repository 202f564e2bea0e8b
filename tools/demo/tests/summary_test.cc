#include "demo/summary.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

const std::vector<Phase> kPhases = {{"healthy", 2s, false}, {"down", 2s, true}, {"recovered", 4s, false}};

OperationResult Op(std::size_t phase, Duration offset, bool ok, Duration latency = 10ms) {
  return {.phase = phase, .offset = offset, .latency = latency, .ok = ok};
}

TEST(DemoSummaryTest, PercentileIsTheNearestRank) {
  std::vector<double> v = {5, 1, 4, 2, 3};
  EXPECT_EQ(Percentile(v, 0.5), 3);
  EXPECT_EQ(Percentile(v, 0.99), 5);
  EXPECT_EQ(Percentile(v, 0.0), 1);
  std::vector<double> none;
  EXPECT_EQ(Percentile(none, 0.5), 0);
}

TEST(DemoSummaryTest, RecoveryIsTheFirstFullWindowAtNinetyNinePercent) {
  std::vector<OperationResult> ops;
  // Failures until 1.6 s after the outage, successes after.
  for (Duration t = 4s; t < 8s; t += 20ms) ops.push_back(Op(2, t, t >= 5600ms));
  const auto r = RecoveryTime(ops, 4s, 8s);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 1750ms);  // windows start every 250 ms: 5.75 s is the first clean one
}

TEST(DemoSummaryTest, NoRecoveryWhenNoWindowMakesIt) {
  std::vector<OperationResult> ops;
  for (Duration t = 4s; t < 8s; t += 20ms) ops.push_back(Op(2, t, t.count() % 3 != 0));
  EXPECT_FALSE(RecoveryTime(ops, 4s, 8s).has_value());
}

TEST(DemoSummaryTest, AmplificationAndOrphansComeFromTheBottomsLedger) {
  std::vector<OperationResult> ops;
  for (int i = 0; i < 100; ++i) ops.push_back(Op(1, 2s + i * 20ms, false, std::chrono::milliseconds(i)));
  for (int i = 0; i < 10; ++i) ops.push_back(Op(0, i * 100ms, i != 0));
  BottomSnapshot bottom;
  bottom.phases["down"] = {.reached = 2700};
  bottom.phases["healthy"] = {.reached = 12, .completed = 11, .orphans = 3, .effects = 6, .duplicate_effects = 2};
  const ModeReport r = Summarize(Mode::kNaive, kPhases, ops, bottom, 0);
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[1].offered, 100u);
  EXPECT_DOUBLE_EQ(r.phases[1].amplification, 27.0);
  EXPECT_DOUBLE_EQ(r.phases[1].success_rate, 0.0);
  EXPECT_DOUBLE_EQ(r.phases[1].p50_ms, 49.0);
  EXPECT_DOUBLE_EQ(r.phases[1].p99_ms, 98.0);
  EXPECT_DOUBLE_EQ(r.phases[0].success_rate, 0.9);
  EXPECT_DOUBLE_EQ(r.phases[0].orphan_ratio, 0.25);
  EXPECT_EQ(r.phases[0].duplicate_effects, 2u);
  EXPECT_EQ(r.phases[2].offered, 0u);  // nothing offered: zeros, not NaN
  EXPECT_DOUBLE_EQ(r.phases[2].amplification, 0.0);
}

TEST(DemoSummaryTest, TimelineIsInAttemptsPerSecondSinceTheStart) {
  BottomSnapshot bottom;
  bottom.timeline[10'000] = 5;  // the bucket [10.000 s, 10.250 s) of wall time
  bottom.timeline[9'750] = 1;   // before the start: dropped
  const ModeReport r = Summarize(Mode::kStormguard, kPhases, {}, bottom, 9'900);
  ASSERT_EQ(r.timeline.size(), 1u);
  EXPECT_DOUBLE_EQ(r.timeline[0].first, 0.225);
  EXPECT_DOUBLE_EQ(r.timeline[0].second, 20.0);
}

TEST(DemoSummaryTest, PhaseSpansLeaveTheSettleBeforeAPhaseWithoutLoad) {
  const std::vector<PhaseSpan> spans =
      PhaseSpans({{"healthy", 2s, false}, {"down", 3s, true, 1s}, {"recovered", 4s, false}});
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].start, 0s);
  EXPECT_EQ(spans[0].end, 2s);
  EXPECT_EQ(spans[1].start, 3s);
  EXPECT_EQ(spans[1].end, 6s);
  EXPECT_EQ(spans[2].start, 6s);
  EXPECT_EQ(spans[2].end, 10s);
  EXPECT_EQ(DemoOptions{}.Phases()[1].settle, kSettleBeforeOutage);
}

TEST(DemoSummaryTest, ASoakHasOnePhaseWithItsTailAndNoRecovery) {
  // 1,000 operations taking 0..999 ms: p99 is the 990th, p99.9 the 999th.
  std::vector<OperationResult> ops;
  for (int i = 0; i < 1000; ++i) ops.push_back(Op(0, i * 5ms, true, std::chrono::milliseconds(999 - i)));
  const std::vector<Phase> soak = DemoOptions{.soak = 5s}.Phases();
  const ModeReport r = Summarize(Mode::kStormguard, soak, ops, {}, 0);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_DOUBLE_EQ(r.phases[0].p50_ms, 499.0);
  EXPECT_DOUBLE_EQ(r.phases[0].p99_ms, 989.0);
  EXPECT_DOUBLE_EQ(r.phases[0].p999_ms, 998.0);
  EXPECT_FALSE(r.recovery.has_value());  // C was never down
}

TEST(DemoSummaryTest, RecoveryCountsFromTheEndOfTheOutageAfterItsSettle) {
  const std::vector<Phase> phases = {{"healthy", 2s, false}, {"down", 2s, true, 1s}, {"recovered", 4s, false}};
  std::vector<OperationResult> ops;
  for (Duration t = 5s; t < 9s; t += 20ms) ops.push_back(Op(2, t, t >= 5500ms));
  const ModeReport r = Summarize(Mode::kStormguard, phases, ops, {}, 0);
  ASSERT_TRUE(r.recovery.has_value());
  EXPECT_EQ(*r.recovery, 500ms);
}

}  // namespace
}  // namespace stormguard::demo
