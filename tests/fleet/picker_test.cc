#include "stormguard/fleet/picker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <vector>

namespace stormguard {
namespace {

using namespace std::chrono_literals;

struct Fleet {
  explicit Fleet(std::size_t n, const EndpointLoadOptions& o = {}) {
    for (std::size_t i = 0; i < n; ++i) owned.push_back(std::make_unique<EndpointLoad>(o));
    for (auto& e : owned) view.push_back(e.get());
  }
  std::vector<std::unique_ptr<EndpointLoad>> owned;
  std::vector<EndpointLoad*> view;
};

TimePoint At(Duration d) { return TimePoint(d); }

TEST(EndpointLoadTest, ASlowerAnswerCountsAtOnceAndFasterOnesDecayTowardThemselves) {
  EndpointLoad e({.decay = 10s, .initial_latency = 10ms});
  EXPECT_EQ(e.average(), 10ms);
  e.Start();
  e.End(1s, At(1s));  // the first answer replaces the guess
  EXPECT_EQ(e.average(), 1s);
  e.Start();
  e.End(10ms, At(11s));  // one decay later: 1/e of the old average is left
  const double expected = 1e9 * std::exp(-1.0) + 1e7 * (1 - std::exp(-1.0));
  EXPECT_NEAR(static_cast<double>(e.average().count()), expected, 1e3);
  e.Start();
  e.End(2s, At(12s));  // a peak again
  EXPECT_EQ(e.average(), 2s);
  EXPECT_EQ(e.outstanding(), 0);
}

TEST(EndpointLoadTest, AFastFailureCountsAsThePenaltyMixedInByTheTimeSinceTheLastAnswer) {
  EndpointLoad e({.decay = 10s, .initial_latency = 10ms, .failure_penalty = 1s});
  e.Start();
  e.End(5ms, At(1s));
  e.Start();
  e.End(1ms, At(11s), /*failed=*/true);  // one decay later: 1/e of the old average is left
  const double expected = 5e6 * std::exp(-1.0) + 1e9 * (1 - std::exp(-1.0));
  EXPECT_NEAR(static_cast<double>(e.average().count()), expected, 1e3);
  const Duration before = e.average();
  e.Start();
  e.End(1ms, At(11s), /*failed=*/true);  // at once after: no time, no weight (never a peak)
  EXPECT_EQ(e.average(), before);
  e.Start();
  e.End(3s, At(12s), /*failed=*/true);  // slower than the penalty: its own latency, a peak
  EXPECT_EQ(e.average(), 3s);
}

TEST(EndpointLoadTest, AFailureSlowerThanTheAverageIsAPeakEvenBelowThePenalty) {
  EndpointLoad e({.decay = 10s, .initial_latency = 10ms, .failure_penalty = 1s});
  e.Start();
  e.End(5ms, At(1s));
  e.Start();
  e.End(250ms, At(1s), /*failed=*/true);  // a timed-out attempt right after: no time to move toward 1 s
  EXPECT_EQ(e.average(), 250ms);
}

TEST(EndpointLoadTest, WithoutAPenaltyAFailureIsJustItsLatency) {
  EndpointLoad e({.decay = 10s, .initial_latency = 10ms, .failure_penalty = 0s});
  e.Start();
  e.End(1ms, At(1s), /*failed=*/true);
  EXPECT_EQ(e.average(), 1ms);
}

TEST(EndpointLoadTest, CostGrowsWithOutstandingCallsAndShrinksWithWeight) {
  EndpointLoad light({.initial_latency = 1ms});
  EndpointLoad heavy({.initial_latency = 1ms, .weight = 2.0});
  EXPECT_NEAR(heavy.Cost(At(1s)) * 2, light.Cost(At(1s)), 1e-6);
  const double idle = light.Cost(At(1s));
  light.Start();
  light.Start();
  EXPECT_NEAR(light.Cost(At(1s)), 3 * idle, 1e-6);
  light.Abandon();
  EXPECT_EQ(light.outstanding(), 1);
}

TEST(EndpointLoadTest, AnIdleEndpointsCostDecaysSoItIsTriedAgain) {
  EndpointLoad e({.decay = 10s});
  e.Start();
  e.End(1s, At(1s));
  EXPECT_NEAR(e.Cost(At(1s)), 1e9 + 1, 1);
  for (Duration later : {1s, 5s, 10s, 30s, 100s}) {  // within 2% of e^-t/decay
    const double expected = 1e9 * std::exp(-static_cast<double>(later.count()) / 1e10) + 1;
    EXPECT_NEAR(e.Cost(At(1s + later)), expected, expected * 0.02) << later.count();
  }
  EXPECT_NEAR(e.Cost(At(1s + 1h)), 1, 1e-6);  // the latency is long forgotten
  EXPECT_EQ(e.average(), 1s);                 // reading decays nothing
}

TEST(EndpointLoadTest, OptionsOutOfRangeAreNamed) {
  EXPECT_EQ(EndpointLoadOptions{.decay = 0s}.Validate(), std::vector<std::string>{"decay: must be positive"});
  EXPECT_EQ(EndpointLoadOptions{.weight = std::nan("")}.Validate(),
            std::vector<std::string>{"weight: must be in (0, 1e6]"});
  EXPECT_EQ(EndpointLoadOptions{.initial_latency = -1ns}.Validate(),
            std::vector<std::string>{"initial_latency: must be at least 0"});
  EXPECT_EQ(EndpointLoadOptions{.failure_penalty = -1ns}.Validate(),
            std::vector<std::string>{"failure_penalty: must be at least 0"});
  EXPECT_TRUE(EndpointLoadOptions{}.Validate().empty());
}

TEST(RoundRobinPickerTest, TakesEachInTurnAndSkipsTheTriedOnes) {
  Fleet f(3);
  RoundRobinPicker p;
  const std::size_t first = p.Pick(f.view);  // where this thread's turn starts
  EXPECT_EQ(p.Pick(f.view), (first + 1) % 3);
  EXPECT_EQ(p.Pick(f.view), (first + 2) % 3);
  EXPECT_EQ(p.Pick(f.view), first);
  Tried tried;
  tried.Add(f.view[(first + 1) % 3]);
  EXPECT_EQ(p.Pick(f.view, tried), (first + 2) % 3);  // its turn was first + 1
  tried.Add(f.view[2]);
  tried.Add(f.view[0]);
  EXPECT_LT(p.Pick(f.view, tried), 3U);  // all tried: any
}

TEST(RoundRobinPickerTest, PickersThatStartTogetherDoNotMoveInStep) {
  Fleet f(100);
  std::set<std::size_t> firsts;
  for (int i = 0; i < 10; ++i) firsts.insert(RoundRobinPicker().Pick(f.view));
  EXPECT_GT(firsts.size(), 1U);  // ten pickers all starting at one replica: 1 in 1e18
}

TEST(PickerTest, EveryKindHasANameThatParsesBack) {
  for (PickerKind k :
       {PickerKind::kRandom, PickerKind::kRoundRobin, PickerKind::kLeastOutstanding, PickerKind::kPeakEwma}) {
    EXPECT_EQ(ParsePickerKind(PickerKindName(k)), k);
  }
  EXPECT_EQ(ParsePickerKind("p2c"), std::nullopt);
  EXPECT_EQ(ParsePickerKind(""), std::nullopt);
}

TEST(PickerTest, LeastOutstandingIgnoresLatencyAndPeakEwmaDoesNot) {
  Fleet f(2, {.initial_latency = 1ms});
  f.view[0]->Start();
  f.view[0]->End(1s, At(1s));  // slow but idle
  f.view[1]->Start();          // fast but busy
  Random random(3);
  Picker least(PickerKind::kLeastOutstanding);
  Picker ewma(PickerKind::kPeakEwma);
  EXPECT_EQ(least.Pick(f.view, {}, random, At(2s)), 0U);
  EXPECT_EQ(ewma.Pick(f.view, {}, random, At(2s)), 1U);
}

TEST(PickerTest, RandomSkipsTriedAndCoversTheSet) {
  Fleet f(4);
  Random random(5);
  Picker p(PickerKind::kRandom);
  std::vector<int> picks(4);
  for (int i = 0; i < 4000; ++i) ++picks[p.Pick(f.view, {}, random, At(2s))];
  for (int n : picks) EXPECT_NEAR(n, 1000, 120);
  Tried tried;
  for (int k : {0, 1, 3}) tried.Add(f.view[k]);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(p.Pick(f.view, tried, random, At(2s)), 2U);
}

TEST(P2CPickerTest, NeverPicksTheSlowReplicaWhileAnotherIsCheaper) {
  Fleet f(10, {.initial_latency = 5ms});
  f.view[3]->Start();
  f.view[3]->End(1200ms, At(1s));
  Random random(42);
  P2CPicker p;
  int slow = 0;
  for (int i = 0; i < 10000; ++i) slow += p.Pick(f.view, {}, random, At(2s)) == 3 ? 1 : 0;
  EXPECT_EQ(slow, 0);  // two distinct draws: the slow one always loses its comparison
}

TEST(P2CPickerTest, ASlowReplicaThatGotNoCallsIsTriedAgainOnceItsLatencyDecayed) {
  Fleet f(3, {.decay = 1s, .initial_latency = 1ms});
  for (EndpointLoad* e : f.view) {
    e->Start();
    e->End(1ms, At(1s));
  }
  f.view[0]->Start();
  f.view[0]->End(1200ms, At(1s));  // turned slow: the dearest of three, never picked
  Random random(9);
  P2CPicker p;
  const auto picks_of_slow = [&](TimePoint now) {
    int n = 0;
    for (int i = 0; i < 1000; ++i) n += p.Pick(f.view, {}, random, now) == 0 ? 1 : 0;
    return n;
  };
  EXPECT_EQ(picks_of_slow(At(1s)), 0);
  for (EndpointLoad* e : std::span(f.view).subspan(1)) {  // the others keep answering; the slow one gets nothing
    e->Start();
    e->End(1ms, At(10s));
  }
  EXPECT_EQ(picks_of_slow(At(1500ms)), 0);
  EXPECT_GT(picks_of_slow(At(10s)), 100);  // 9 decays later its 1.2 s weighs less than their 1 ms
}

TEST(P2CPickerTest, SpreadsLoadByOutstandingCalls) {
  Fleet f(4, {.initial_latency = 5ms});
  Random random(7);
  P2CPicker p;
  std::vector<int> picks(4);
  for (int i = 0; i < 400; ++i) {  // calls that never end: each pick adds load
    const std::size_t k = p.Pick(f.view, {}, random, At(2s));
    f.view[k]->Start();
    ++picks[k];
  }
  for (int n : picks) EXPECT_NEAR(n, 100, 3);
}

TEST(P2CPickerTest, ARetryGoesToAReplicaNotTriedYet) {
  Fleet f(3);
  Random random(1);
  P2CPicker p;
  Tried tried;
  tried.Add(f.view[0]);
  tried.Add(f.view[1]);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(p.Pick(f.view, tried, random, At(2s)), 2U);
  tried.Add(f.view[2]);
  for (int i = 0; i < 100; ++i) ASSERT_LT(p.Pick(f.view, tried, random, At(2s)), 3U);  // all tried: any
  Fleet one(1);
  EXPECT_EQ(p.Pick(one.view, tried, random, At(2s)), 0U);
}

}  // namespace
}  // namespace stormguard
