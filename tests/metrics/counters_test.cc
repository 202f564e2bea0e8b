#include "stormguard/metrics/counters.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

Event CounterEvent(EventKind kind, PolicyId policy, std::string_view reason, Duration d = Duration::zero()) {
  return Event{.kind = kind, .policy = policy, .reason = reason, .duration = d};
}

TEST(CountingListenerTest, CountsPerKindAndPerPolicyAndReason) {
  CountingListener c;
  c.OnEvent(CounterEvent(EventKind::kRejected, PolicyId::kCircuitBreaker, "open"));
  c.OnEvent(CounterEvent(EventKind::kRejected, PolicyId::kCircuitBreaker, "open"));
  c.OnEvent(CounterEvent(EventKind::kRejected, PolicyId::kBulkhead, "full"));
  c.OnEvent(CounterEvent(EventKind::kAbandoned, PolicyId::kTimeout, "ignored_stop", 30ms));
  c.OnEvent(CounterEvent(EventKind::kAbandoned, PolicyId::kTimeout, "ignored_stop", 20ms));
  auto s = c.Read();
  EXPECT_EQ(s.count(EventKind::kRejected), 3u);
  EXPECT_EQ(s.count(EventKind::kRejected, PolicyId::kCircuitBreaker), 2u);
  EXPECT_EQ(s.count(EventKind::kRejected, PolicyId::kCircuitBreaker, "open"), 2u);
  EXPECT_EQ(s.count(EventKind::kRejected, PolicyId::kBulkhead, "open"), 0u);
  EXPECT_EQ(s.total(EventKind::kAbandoned, PolicyId::kTimeout), 50ms);
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].policy, PolicyId::kCircuitBreaker);  // sorted by kind, policy id, reason
  EXPECT_EQ(s.rows[1].policy, PolicyId::kBulkhead);
}

TEST(CountingListenerTest, KeysBeyondCapacityAreCountedAsDropped) {
  CountingListener c(/*max_keys=*/2);
  c.OnEvent(CounterEvent(EventKind::kGaveUp, PolicyId::kRetry, "a"));
  c.OnEvent(CounterEvent(EventKind::kGaveUp, PolicyId::kRetry, "b"));
  c.OnEvent(CounterEvent(EventKind::kGaveUp, PolicyId::kRetry, "c"));
  auto s = c.Read();
  EXPECT_EQ(s.count(EventKind::kGaveUp), 3u);
  EXPECT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.dropped, 1u);
}

TEST(CountingListenerTest, ConcurrentIncrementsAreAllCounted) {
  CountingListener c;
  constexpr int kThreads = 4, kEvents = 20000;
  static constexpr std::string_view kReasons[] = {"a", "b", "c", "d"};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kEvents; ++i)
          c.OnEvent(CounterEvent(EventKind::kRejected, PolicyId::kRateLimiter, kReasons[i % 4]));
      });
    }
  }
  auto s = c.Read();
  EXPECT_EQ(s.count(EventKind::kRejected), std::uint64_t{kThreads} * kEvents);
  EXPECT_EQ(s.count(EventKind::kRejected, PolicyId::kRateLimiter, "c"), std::uint64_t{kThreads} * kEvents / 4);
  EXPECT_EQ(s.rows.size(), 4u);
}

TEST(CountingListenerTest, ScopedListenersCountTwoBreakersApart) {
  CountingListener counters;
  ScopedListener payments("payments", counters);
  ScopedListener inventory("inventory", counters);
  auto a = CircuitBreaker::Create(
      {.failure_rate_threshold = 0.5, .window_size = 2, .minimum_number_of_calls = 2, .listener = &payments});
  auto b = CircuitBreaker::Create({.listener = &inventory});
  ASSERT_TRUE(a.ok() && b.ok());
  const TimePoint start = TimePoint(1h);
  for (int i = 0; i < 2; ++i) (*a)->OnResult(OutcomeClass::kTransient, 1ms, start);  // trips
  EXPECT_FALSE((*a)->Acquire(start).ok());
  EXPECT_TRUE((*b)->Acquire(start).ok());
  auto s = counters.Read();
  EXPECT_EQ(s.count(EventKind::kRejected, PolicyId::kCircuitBreaker), 1u);
  EXPECT_EQ(s.ForScope("payments").count(EventKind::kRejected, PolicyId::kCircuitBreaker), 1u);
  EXPECT_EQ(s.ForScope("payments").count(EventKind::kStateChanged), 1u);
  EXPECT_EQ(s.ForScope("inventory").count(EventKind::kRejected), 0u);
  EXPECT_EQ(s.ForScope("").rows.size(), 0u);
}

TEST(CountingListenerTest, TheScopeNearestThePolicyWins) {
  CountingListener counters;
  ScopedListener pipeline("checkout", counters);
  ScopedListener breaker("checkout.payments", pipeline);
  breaker.OnEvent(CounterEvent(EventKind::kRejected, PolicyId::kCircuitBreaker, "open"));
  pipeline.OnEvent(CounterEvent(EventKind::kGaveUp, PolicyId::kRetry, "max_attempts"));
  auto s = counters.Read();
  EXPECT_EQ(s.ForScope("checkout.payments").count(EventKind::kRejected, PolicyId::kCircuitBreaker), 1u);
  EXPECT_EQ(s.ForScope("checkout").count(EventKind::kGaveUp, PolicyId::kRetry), 1u);
  EXPECT_EQ(s.ForScope("checkout").count(EventKind::kRejected), 0u);
}

}  // namespace
}  // namespace stormguard
