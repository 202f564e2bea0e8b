#include "stormguard/pipeline/counters.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

Event Ev(EventKind kind, std::string_view policy, std::string_view reason, Duration d = Duration::zero()) {
  return Event{.kind = kind, .policy = policy, .reason = reason, .duration = d};
}

TEST(CountingListenerTest, CountsPerKindAndPerPolicyAndReason) {
  CountingListener c;
  c.OnEvent(Ev(EventKind::kRejected, "circuit_breaker", "open"));
  c.OnEvent(Ev(EventKind::kRejected, "circuit_breaker", "open"));
  c.OnEvent(Ev(EventKind::kRejected, "bulkhead", "full"));
  c.OnEvent(Ev(EventKind::kAbandoned, "timeout", "ignored_stop", 30ms));
  c.OnEvent(Ev(EventKind::kAbandoned, "timeout", "ignored_stop", 20ms));
  auto s = c.Read();
  EXPECT_EQ(s.count(EventKind::kRejected), 3u);
  EXPECT_EQ(s.count(EventKind::kRejected, "circuit_breaker"), 2u);
  EXPECT_EQ(s.count(EventKind::kRejected, "circuit_breaker", "open"), 2u);
  EXPECT_EQ(s.count(EventKind::kRejected, "bulkhead", "open"), 0u);
  EXPECT_EQ(s.total(EventKind::kAbandoned, "timeout"), 50ms);
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].policy, "bulkhead");  // sorted by kind, policy, reason
}

TEST(CountingListenerTest, KeysBeyondCapacityAreCountedAsDropped) {
  CountingListener c(/*max_keys=*/2);
  c.OnEvent(Ev(EventKind::kGaveUp, "retry", "a"));
  c.OnEvent(Ev(EventKind::kGaveUp, "retry", "b"));
  c.OnEvent(Ev(EventKind::kGaveUp, "retry", "c"));
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
        for (int i = 0; i < kEvents; ++i) c.OnEvent(Ev(EventKind::kRejected, "limiter", kReasons[i % 4]));
      });
    }
  }
  auto s = c.Read();
  EXPECT_EQ(s.count(EventKind::kRejected), std::uint64_t{kThreads} * kEvents);
  EXPECT_EQ(s.count(EventKind::kRejected, "limiter", "c"), std::uint64_t{kThreads} * kEvents / 4);
  EXPECT_EQ(s.rows.size(), 4u);
}

}  // namespace
}  // namespace stormguard
