// The chaos policy's draws: rate and enabled decide, seeds repeat, bad
// settings are refused by field and change nothing.
#include "stormguard/chaos/chaos_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stormguard/metrics/counters.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

std::shared_ptr<ChaosPolicy> Make(ChaosOptions o) {
  auto p = ChaosPolicy::Create(std::move(o));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

int Injections(ChaosPolicy& p, int calls) {
  ManualClock clock;
  int hits = 0;
  for (int i = 0; i < calls; ++i) hits += p.Decide(clock, 1).inject ? 1 : 0;
  return hits;
}

TEST(ChaosPolicyTest, RateZeroNeverInjectsAndRateOneAlways) {
  EXPECT_EQ(Injections(*Make({.rate = 0.0, .seed = 7}), 10'000), 0);
  EXPECT_EQ(Injections(*Make({.rate = 1.0, .seed = 7}), 10'000), 10'000);
}

TEST(ChaosPolicyTest, ASeededRateInjectsItsShareWithinABound) {
  // 10,000 draws at 0.3: the standard deviation is ~46, so +-300 is > 6 sigma.
  const int hits = Injections(*Make({.rate = 0.3, .seed = 42}), 10'000);
  EXPECT_GT(hits, 2'700);
  EXPECT_LT(hits, 3'300);
}

TEST(ChaosPolicyTest, TheSameSeedDrawsTheSameCalls) {
  auto a = Make({.rate = 0.5, .seed = 9});
  auto b = Make({.rate = 0.5, .seed = 9});
  ManualClock clock;
  for (int i = 0; i < 200; ++i) ASSERT_EQ(a->Decide(clock, 1).inject, b->Decide(clock, 1).inject) << i;
}

TEST(ChaosPolicyTest, DisabledInjectsNothingUntilEnabledAgain) {
  auto p = Make({.enabled = false, .rate = 1.0, .seed = 3});
  EXPECT_EQ(Injections(*p, 1'000), 0);
  EXPECT_EQ(p->injected(), 0u);
  p->SetEnabled(true);
  EXPECT_EQ(Injections(*p, 10), 10);
  EXPECT_EQ(p->injected(), 10u);
}

TEST(ChaosPolicyTest, ABadRateIsRefusedByNameAndTheOldOneKept) {
  auto p = Make({.rate = 0.25, .seed = 1});
  for (double bad : {std::nan(""), -0.1, 1.5, std::numeric_limits<double>::infinity()}) {
    Status s = p->SetRate(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("rate: must be in [0, 1]")) << bad;
    EXPECT_EQ(p->rate(), 0.25) << bad;
  }
  EXPECT_TRUE(p->SetRate(1.0).ok());
  EXPECT_EQ(p->rate(), 1.0);
}

TEST(ChaosPolicyTest, OptionsAreValidatedByField) {
  auto bad_rate = ChaosPolicy::Create({.rate = std::nan("")});
  EXPECT_THAT(bad_rate.status().message(), HasSubstr("rate: must be in [0, 1], got nan"));
  auto ok_error = ChaosPolicy::Create({.status = Status::Ok()});
  EXPECT_THAT(ok_error.status().message(), HasSubstr("status: must not be OK"));
  auto bad_latency = ChaosPolicy::Create({.kind = ChaosKind::kLatency, .latency = -1ms});
  EXPECT_THAT(bad_latency.status().message(), HasSubstr("latency: must be in [0, 1h]"));
  auto bad_max = ChaosPolicy::Create({.kind = ChaosKind::kLatency, .latency = 5ms, .latency_max = 2ms});
  EXPECT_THAT(bad_max.status().message(), HasSubstr("latency_max: must be 0 (a fixed delay) or in [latency, 1h]"));
}

TEST(ChaosPolicyTest, LatencyIsFixedOrDrawnWithinItsRange) {
  auto fixed = Make({.kind = ChaosKind::kLatency, .rate = 1.0, .latency = 40ms, .seed = 5});
  ManualClock clock;
  EXPECT_EQ(fixed->Decide(clock, 1).delay, 40ms);
  auto sampled = Make({.kind = ChaosKind::kLatency, .rate = 1.0, .latency = 10ms, .latency_max = 30ms, .seed = 5});
  Duration lo = 1h, hi = Duration::zero();
  for (int i = 0; i < 1'000; ++i) {
    const Duration d = sampled->Decide(clock, 1).delay;
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  EXPECT_GE(lo, 10ms);
  EXPECT_LT(lo, 11ms);  // 1,000 draws cover the range's ends
  EXPECT_LE(hi, 30ms);
  EXPECT_GT(hi, 29ms);
}

TEST(ChaosPolicyTest, EveryInjectionIsAnEventNamingItsKind) {
  CountingListener counts;
  auto p = Make({.kind = ChaosKind::kOutcome, .rate = 1.0, .seed = 2, .listener = &counts});
  EXPECT_EQ(Injections(*p, 3), 3);
  EXPECT_EQ(counts.Read().count(EventKind::kChaosInjected, PolicyId::kChaos, "outcome"), 3u);
  EXPECT_EQ(EventKindName(EventKind::kChaosInjected), "chaos_injected");
}

TEST(ChaosPolicyTest, TheInjectedStatusNamesChaosAsItsSource) {
  auto p = Make({.rate = 1.0, .status = Status::ResourceExhausted("shed")});
  EXPECT_EQ(p->InjectedStatus().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(p->InjectedStatus().source(), "chaos");
}

}  // namespace
}  // namespace stormguard
