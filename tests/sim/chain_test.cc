#include "stormguard/sim/chain.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

ChainSpec Chain(int layers, int retries) {
  ChainSpec spec;
  for (int i = 0; i < layers; ++i) {
    spec.services.push_back({.name = "layer"});
    spec.hops.push_back(
        {.retry = {.max_attempts = retries + 1,
                   .backoff = {.kind = BackoffKind::kExponential, .base = 10ms, .cap = 1s, .jitter = Jitter::kFull},
                   .per_attempt_timeout = 1s,
                   .idempotent = true,
                   .retry_when_serving_a_retry = true}});
  }
  spec.services.push_back({.name = "bottom", .latency = Latency::Fixed(1ms), .error_rate = 1.0});
  spec.load = {.rate = 1000, .duration = 5s};
  return spec;
}

TEST(ChainTest, EveryLayerRetryingMultipliesTheLoad) {
  for (auto [layers, retries] : {std::pair{1, 0}, {1, 2}, {2, 2}, {3, 2}, {3, 3}}) {
    auto r = RunChain(Chain(layers, retries));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    double expect = 1;
    for (int i = 0; i < layers; ++i) expect *= 1 + retries;
    EXPECT_EQ(r->nodes.back().arrivals, static_cast<std::int64_t>(expect) * r->offered);
    EXPECT_GT(r->offered, 4000);
  }
}

}  // namespace
}  // namespace stormguard::sim

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

ChainSpec OneService(ServiceSpec s, LoadSpec load) {
  ChainSpec spec;
  spec.services = {std::move(s)};
  spec.load = load;
  return spec;
}

TEST(ChainTest, AFullQueueRefusesAndQueuedWorkWaitsForAWorker) {
  auto r = RunChain(OneService({.concurrency = 1, .queue_limit = 2, .latency = Latency::Fixed(10ms)}, {.burst = 5}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->nodes[0].arrivals, 5);
  EXPECT_EQ(r->nodes[0].refused_full, 2);
  EXPECT_EQ(r->nodes[0].peak_queue, 2);
  EXPECT_EQ(r->succeeded, 3);
  EXPECT_EQ(r->failed, 2);
  EXPECT_EQ(r->elapsed, 30ms);  // three requests, one worker, 10 ms each
}

TEST(ChainTest, ExpiredRequestsAreRefusedBeforeAnyWork) {
  auto r = RunChain(OneService({.concurrency = 1, .queue_limit = 10, .latency = Latency::Fixed(10ms)},
                               {.burst = 3, .deadline = 5ms}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->succeeded, 1);  // the one already at work finishes
  EXPECT_EQ(r->nodes[0].refused_expired, 2);
  EXPECT_EQ(r->elapsed, 10ms);  // no worker time went to the expired two
}

TEST(ChainTest, OutageWindowsFailEveryRequestInsideThem) {
  auto r =
      RunChain(OneService({.latency = Latency::Fixed(1ms), .outages = {{1s, 2s}}}, {.rate = 1000, .duration = 3s}));
  ASSERT_TRUE(r.ok());
  // Counted when answered, 1 ms after arrival: at most one request on each edge.
  EXPECT_LE(At(r->series.successes, 1), 1);
  EXPECT_GT(At(r->series.failures, 1), 900);
  EXPECT_LE(At(r->series.failures, 0) + At(r->series.failures, 2), 2);
  EXPECT_EQ(r->nodes[0].failed, r->failed);
}

TEST(ChainTest, ACapacityDropCutsThroughputUntilItEnds) {
  // 10 workers x 10 ms = 1000/s, offered 1500/s with a deep queue; half the
  // workers are gone in [1 s, 2 s).
  auto r = RunChain(OneService({.concurrency = 10,
                                .queue_limit = 100000,
                                .latency = Latency::Fixed(10ms),
                                .capacity_drops = {{.window = {1s, 2s}, .factor = 0.5}}},
                               {.rate = 1500, .duration = 3s}));
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(static_cast<double>(At(r->series.successes, 0)), 1000, 20);
  EXPECT_NEAR(static_cast<double>(At(r->series.successes, 1)), 500, 20);
  EXPECT_NEAR(static_cast<double>(At(r->series.successes, 2)), 1000, 20);
  EXPECT_EQ(r->succeeded, r->offered);  // all served in the end
}

TEST(ChainTest, HungRequestsAreNeverAnsweredAndTheClientGivesUp) {
  auto r = RunChain(OneService({.hang_rate = 1.0}, {.burst = 4, .patience = 2s}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->nodes[0].hung, 4);
  EXPECT_EQ(r->abandoned, 4);
  EXPECT_EQ(r->elapsed, 2s);
}

TEST(ChainTest, ATimedOutAttemptIsRetriedAndItsLateAnswerDropped) {
  ChainSpec spec;
  spec.services = {{.name = "caller"}, {.name = "slow", .latency = Latency::Fixed(150ms)}};
  spec.hops = {{.retry = {.max_attempts = 3,
                          .backoff = {.kind = BackoffKind::kConstant, .base = 10ms, .cap = 10ms},
                          .per_attempt_timeout = 100ms,
                          .idempotent = true}}};
  spec.load = {.burst = 1};
  auto r = RunChain(spec);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hops[0].attempts, 3);
  EXPECT_EQ(r->hops[0].timeouts, 3);
  EXPECT_EQ(r->nodes[1].arrivals, 3);  // the callee did all three, for nobody
  EXPECT_EQ(r->failed, 1);
  EXPECT_EQ(r->elapsed, 370ms);  // the third attempt's answer at 220 + 150 ms
}

TEST(ChainTest, InvalidSpecsNameEveryBadField) {
  ChainSpec spec;
  spec.services = {{.concurrency = -1, .error_rate = 2}, {}};
  spec.load = {.rate = -5};
  auto r = RunChain(spec);
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().message();
  for (const char* field : {"services[0].concurrency", "services[0].error_rate", "hops", "load.rate"}) {
    EXPECT_NE(m.find(field), std::string::npos) << field << " in " << m;
  }
}

}  // namespace
}  // namespace stormguard::sim
