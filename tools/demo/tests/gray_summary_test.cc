#include "demo/gray_summary.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

// 1 s healthy, 4 s gray, 4 s healed, from Unix ms 100'000.
const std::vector<Phase> kGrayTestPhases = {
    {.name = "healthy", .length = 1s}, {.name = "gray", .length = 4s, .gray = true}, {.name = "healed", .length = 4s}};
constexpr std::int64_t kGrayTestStart = 100'000, kGrayAt = 101'000, kHealedAt = 105'000;
const std::string kGrayTestEndpoint = "127.0.0.1:7000";

// `per_bucket` arrivals in every 250 ms bucket of [from_ms, until_ms).
BottomSnapshot Arrivals(std::int64_t from_ms, std::int64_t until_ms, std::uint64_t per_bucket) {
  BottomSnapshot s;
  for (std::int64_t t = from_ms; t < until_ms; t += kTimelineBucketMs) s.timeline[t] = per_bucket;
  return s;
}

TEST(GraySummaryTest, ShareCountsOnlyArrivalsFromTwoSecondsIntoTheGrayPhase) {
  // Replica 0 takes 3 per bucket until 2 s into the gray phase, then 1.
  BottomSnapshot gray = Arrivals(kGrayTestStart, kGrayAt + 2000, 3);
  for (const auto& [t, n] : Arrivals(kGrayAt + 2000, kHealedAt, 1).timeline) gray.timeline[t] = n;
  const std::vector<BottomSnapshot> ledgers = {gray, Arrivals(kGrayTestStart, kHealedAt, 3),
                                               Arrivals(kGrayTestStart, kHealedAt, 5)};
  const GraySummary g = SummarizeGray(kGrayTestPhases, ledgers, std::nullopt, kGrayTestEndpoint, kGrayTestStart);
  EXPECT_EQ(g.phase, 1u);
  EXPECT_EQ(g.gray_attempts, 8u);  // 8 buckets of 1
  EXPECT_EQ(g.all_attempts, 8u * 9);
  EXPECT_DOUBLE_EQ(g.gray_share, 1.0 / 9);
  EXPECT_DOUBLE_EQ(g.healthy_share, 3.0 / 11);  // the healthy second: 3 of 3 + 3 + 5
  EXPECT_FALSE(g.ejections_known);
  EXPECT_FALSE(g.ejected);
}

TEST(GraySummaryTest, EjectionAndReadmissionAreTimedFromTheirPhases) {
  const std::vector<BottomSnapshot> ledgers = {BottomSnapshot{}};
  const auto out = EndpointState::kEjectedConsecutiveFailures, in = EndpointState::kAdmitted;
  const std::vector<ReplicaChange> changes = {
      {kGrayTestStart + 500, kGrayTestEndpoint, out},                                          // before gray: not it
      {kGrayTestStart + 800, kGrayTestEndpoint, in},  {kGrayAt + 100, "127.0.0.1:7001", out},  // another replica
      {kGrayAt + 600, kGrayTestEndpoint, out},        {kGrayAt + 3600, kGrayTestEndpoint, in},
      {kGrayAt + 3700, kGrayTestEndpoint, out},       {kHealedAt + 1500, kGrayTestEndpoint, in}};
  const GraySummary g = SummarizeGray(kGrayTestPhases, ledgers, changes, kGrayTestEndpoint, kGrayTestStart);
  EXPECT_TRUE(g.ejections_known);
  EXPECT_EQ(g.ejected, 600ms);
  EXPECT_EQ(g.readmitted, 1500ms);

  // Back in before the phase healed: zero; still out at the end: none.
  const std::vector<ReplicaChange> back_early(changes.begin(), changes.begin() + 5);
  EXPECT_EQ(SummarizeGray(kGrayTestPhases, ledgers, back_early, kGrayTestEndpoint, kGrayTestStart).readmitted, 0ms);
  const std::vector<ReplicaChange> still_out(changes.begin(), changes.begin() + 6);
  EXPECT_FALSE(SummarizeGray(kGrayTestPhases, ledgers, still_out, kGrayTestEndpoint, kGrayTestStart).readmitted);
  // Never ejected in the gray phase: neither time.
  const std::vector<ReplicaChange> early_only(changes.begin(), changes.begin() + 3);
  const GraySummary none = SummarizeGray(kGrayTestPhases, ledgers, early_only, kGrayTestEndpoint, kGrayTestStart);
  EXPECT_FALSE(none.ejected);
  EXPECT_FALSE(none.readmitted);
}

TEST(GraySummaryTest, ShareBackIsTheEndOfTheFirstSecondWithHalfTheHealthyShare) {
  // Healthy: replica 0 takes 2 of 6 per bucket (a third). Healed: nothing
  // for 1.5 s, then 1 of 5 per bucket (a fifth, over half a third).
  BottomSnapshot gray = Arrivals(kGrayTestStart, kGrayAt, 2);
  for (const auto& [t, n] : Arrivals(kHealedAt + 1500, kHealedAt + 4000, 1).timeline) gray.timeline[t] = n;
  BottomSnapshot others = Arrivals(kGrayTestStart, kHealedAt + 4000, 4);
  const GraySummary g = SummarizeGray(kGrayTestPhases, {gray, others}, std::nullopt, kGrayTestEndpoint, kGrayTestStart);
  EXPECT_DOUBLE_EQ(g.healthy_share, 1.0 / 3);
  // The window from 1.0 s holds 2 of its 4 buckets with replica 0's
  // answers: 2 of 18, under a sixth; the one from 1.25 s 3 of 19; from 1.5 s
  // 4 of 20, a fifth.
  EXPECT_EQ(g.share_back, 2500ms);

  BottomSnapshot never = Arrivals(kGrayTestStart, kGrayAt, 2);
  EXPECT_FALSE(
      SummarizeGray(kGrayTestPhases, {never, others}, std::nullopt, kGrayTestEndpoint, kGrayTestStart).share_back);
}

TEST(GraySummaryTest, MergeAddsEveryReplicasCountsAndBuckets) {
  BottomSnapshot a, b;
  a.phases["gray"] = {.reached = 3, .completed = 2, .orphans = 1, .effects = 0, .duplicate_effects = 0};
  b.phases["gray"] = {.reached = 4, .completed = 4, .orphans = 0, .effects = 0, .duplicate_effects = 0};
  a.timeline[1000] = 2;
  b.timeline[1000] = 5;
  b.timeline[1250] = 1;
  b.in_flight = 1;
  const BottomSnapshot sum = MergeSnapshots({a, b});
  EXPECT_EQ(sum.phases.at("gray").reached, 7u);
  EXPECT_EQ(sum.phases.at("gray").completed, 6u);
  EXPECT_EQ(sum.phases.at("gray").orphans, 1u);
  EXPECT_EQ(sum.timeline.at(1000), 7u);
  EXPECT_EQ(sum.timeline.at(1250), 1u);
  EXPECT_EQ(sum.in_flight, 1u);
}

struct GrayTestCounting final : Listener {
  void OnEvent(const Event&) noexcept override { ++events; }
  int events = 0;
};

TEST(ReplicaLogTest, KeepsOutlierStateChangesAndForwardsEveryEvent) {
  GrayTestCounting next;
  ReplicaLog log(next);
  log.OnEvent({.kind = EventKind::kAttemptEnded});
  log.OnEvent({.kind = EventKind::kStateChanged, .policy = PolicyId::kCircuitBreaker});  // not a replica's
  log.OnEvent({.kind = EventKind::kStateChanged,
               .policy = PolicyId::kOutlierDetection,
               .to_state = static_cast<std::uint8_t>(EndpointState::kEjectedConsecutiveFailures),
               .endpoint = "127.0.0.1:7000"});
  EXPECT_EQ(next.events, 3);
  const std::vector<ReplicaChange> changes = log.Changes();
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].endpoint, "127.0.0.1:7000");
  EXPECT_EQ(changes[0].to, EndpointState::kEjectedConsecutiveFailures);
  EXPECT_GT(changes[0].unix_ms, 0);
  EXPECT_EQ(ReplicaChangesFromJson(ToJson(changes)), changes);
  EXPECT_THROW(ReplicaChangesFromJson(nlohmann::json::parse(R"([[1, "a:1", "sideways"]])")), std::exception);
}

}  // namespace
}  // namespace stormguard::demo
