#include "stormguard/sim/chain.h"

#include <gtest/gtest.h>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

ChainSpec Chain(int layers, int retries) {
  ChainSpec spec;
  for (int i = 0; i < layers; ++i) {
    spec.services.push_back({.name = "layer"});
    spec.hops.push_back({.retry = {.max_attempts = retries + 1,
                                   .backoff = {.kind = BackoffKind::kExponential, .base = 10ms,
                                               .cap = 1s, .jitter = Jitter::kFull},
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
