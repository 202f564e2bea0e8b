// Every scenario refuses, before it runs, options whose work or memory has
// no sane bound, and names the field to change.
#include "stormguard/sim/limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include "stormguard/sim/budget_scenario.h"
#include "stormguard/sim/chain_scenario.h"
#include "stormguard/sim/contention.h"
#include "stormguard/sim/deadline_demo.h"
#include "stormguard/sim/metastable.h"
#include "stormguard/sim/storm.h"

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(LimitsTest, DefaultsAreWellInside) {
  EXPECT_THAT(StormOptions{}.Validate(), IsEmpty());
  EXPECT_THAT(BudgetScenarioOptions{}.Validate(), IsEmpty());
  const ChainScenarioOptions every_control{.controls = {kAllControls.begin(), kAllControls.end()}};
  EXPECT_THAT(every_control.Validate(), IsEmpty());
  EXPECT_THAT(MetastableOptions{}.Validate(), IsEmpty());
  EXPECT_THAT(ContentionOptions{}.Validate(), IsEmpty());
  EXPECT_THAT(DeadlineOptions{}.Validate(), IsEmpty());
}

TEST(LimitsTest, ChainAttemptsSumsEveryLayer) {
  EXPECT_EQ(ChainAttempts(3, 2), 3 + 9 + 27);
  EXPECT_EQ(ChainAttempts(4, 0), 4);
  EXPECT_EQ(LoopSeconds(2, 1s, 500ms), 3 * 1.0 + 2 * 0.5);
}

TEST(LimitsTest, StormRefusesANanosecondBucketOverHours) {
  const auto errors = StormOptions{.base = 1h, .cap = 1h, .bucket = 1ns}.Validate();
  ASSERT_THAT(errors, ElementsAre(StartsWith("bucket: 1e-09s over up to 1.44e+04s in 35 time series")));
  EXPECT_THAT(errors[0], HasSubstr("(at most 1e+07)"));
}

TEST(LimitsTest, StormRefusesMoreClientsThanFitInMemoryOrTime) {
  const StormOptions huge{.clients = 10'000'000, .retries = 1000};
  const std::vector<std::string> errors = huge.Validate();
  EXPECT_THAT(errors, Contains(StartsWith("clients: 10000000 clients failing at once makes 2e+07 calls in flight")));
  EXPECT_THAT(errors, Contains(StartsWith("clients: 10000000 clients x 1001 attempts x 5 strategies makes 5e+10")));
  const StormOptions largest{.clients = 1'000'000, .retries = 9, .strategies = {Strategy::kFixed}};
  EXPECT_THAT(largest.Validate(), IsEmpty());
}

TEST(LimitsTest, BudgetRefusesInfiniteRatesAndEndlessDurations) {
  EXPECT_THAT(BudgetScenarioOptions{.rate = kInf}.Validate(), Contains(StartsWith("duration: ")));
  EXPECT_THAT(BudgetScenarioOptions{.rate = kNaN}.Validate(), ElementsAre("rate: must be positive"));
  EXPECT_THAT(BudgetScenarioOptions{.duration = 1'000'000h}.Validate(),
              Contains(StartsWith("duration: 3.6e+09s at 1e+03 requests/s, up to 2 attempts each")));
  EXPECT_THAT(BudgetScenarioOptions{.duration = Duration::max()}.Validate(), Not(IsEmpty()));
}

TEST(LimitsTest, ChainRefusesMultiplicationPastTheLimit) {
  const ChainScenarioOptions deep{.layers = 16, .retries = 100};
  EXPECT_THAT(deep.Validate(),
              Contains(StartsWith("retries: 16 layers of 100 retries x 1 controls, for one request, makes 1.18e+32")));
  EXPECT_THAT(ChainScenarioOptions{.duration = 1'000'000h}.Validate(), Contains(StartsWith("duration: ")));
  EXPECT_THAT(ChainScenarioOptions{.bucket = 1ns}.Validate(), ElementsAre(StartsWith("bucket: ")));
  const ChainScenarioOptions slow{.failure = Failure::kHang, .timeout = 1000h};
  EXPECT_THAT(slow.Validate(), Contains(StartsWith("rate: ")));
}

// trigger_at + trigger_for used to be added unchecked: signed overflow,
// and then an error about a field the scenario does not have.
TEST(LimitsTest, MetastableTriggerNearTheEndOfTimeIsRefusedByName) {
  const Duration half = Duration::max() / 2 + 1s;
  const MetastableOptions o{.trigger_at = half, .trigger_for = half};
  EXPECT_THAT(o.Validate(), Contains(StartsWith("duration: must last a bucket or more past the end of the trigger")));
  const auto r = RunMetastable(o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("metastable options: duration: "));
}

TEST(LimitsTest, MetastableRefusesHugeLoadsQueuesAndSpans) {
  const MetastableOptions fast{.workers = 100'000, .latency = 1ns};
  EXPECT_THAT(fast.Validate(), Contains(StartsWith("duration: ")));
  EXPECT_THAT(MetastableOptions{.queue = 100'000'000}.Validate(), ElementsAre(StartsWith("queue: ")));
  const MetastableOptions deep{.layers = 8, .retries = 100};
  EXPECT_THAT(deep.Validate(), Contains(StartsWith("retries: ")));
  EXPECT_THAT(MetastableOptions{.duration = Duration::max()}.Validate(), Not(IsEmpty()));
  EXPECT_THAT(MetastableOptions{.bucket = 1ns}.Validate(), Contains(StartsWith("bucket: ")));
}

TEST(LimitsTest, ContentionBoundsTheSquareOfTheClients) {
  EXPECT_THAT(ContentionOptions{.clients = 100'000}.Validate(), ElementsAre(StartsWith("clients: ")));
  EXPECT_THAT(ContentionOptions{.runs = 100'000}.Validate(), ElementsAre(StartsWith("runs: ")));
}

// 1 / rate is the gap between arrivals: a rate so small that the gap does
// not fit a Duration, or an infinite one (a zero gap), is refused.
TEST(LimitsTest, ChainRefusesRatesWhoseGapIsNotADuration) {
  for (double rate : {1e-300, 1e-7, kInf, kNaN, -1.0}) {
    ChainSpec spec;
    spec.services = {{.name = "clients"}, {.name = "service"}};
    spec.hops = {{}};
    spec.load = {.rate = rate, .duration = 1s};
    EXPECT_THAT(spec.Validate(), Contains(StartsWith("load.rate: "))) << rate;
  }
  const auto r = RunChainScenario({.rate = 1e-300});
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("load.rate: must be 0 or a finite number of at least 1e-6"));
}

TEST(LimitsTest, DeadlineKeepsAtMostAThousandAttempts) {
  EXPECT_THAT(DeadlineOptions{.max_attempts = 1'000'000}.Validate(), ElementsAre("max_attempts: must be in [1, 1000]"));
}

}  // namespace
}  // namespace stormguard::sim
