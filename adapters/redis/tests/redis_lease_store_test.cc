#include "stormguard/redis/redis_lease_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "redis_process.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "testkit/recording_listener.h"

namespace stormguard::redis {
namespace {

using namespace std::chrono_literals;
using testkit::RedisProcess;

constexpr char kAcl[] = "fleet on >secret ~sg:* +@all -@dangerous";

// A store for the limit "search" of 300/s, with 4 s leases.
std::shared_ptr<RedisLeaseStore> Store(const RedisProcess& redis, const std::string& password, Clock& clock) {
  return RedisLeaseStore::Create({.address = redis.address(),
                                  .user = "fleet",
                                  .password = password,
                                  .prefix = "sg",
                                  .limit_name = "search",
                                  .capacity = 300,
                                  .lease_length = 4s,
                                  .max_reconnect_backoff = 1s,
                                  .clock = &clock})
      .value();
}

GlobalRateLimiterOptions LimiterOptions(const char* id, Duration refresh, Listener* listener, Clock& clock) {
  return {.name = "search",
          .instance_id = id,
          .limit = 300,
          .burst = 10,
          .refresh_interval = refresh,
          .lease_length = 4s,
          .listener = listener,
          .clock = &clock};
}

// Two instances of one fleet-wide limit of 300/s, each with its own store
// (its own connection), on a ManualClock driven by the test.
struct RedisFleet {
  explicit RedisFleet(RedisProcess& redis, const std::string& password = "secret", Listener* listener = nullptr) {
    for (const char* id : {"a", "b"}) {
      stores.push_back(Store(redis, password, clock));
      limiters.push_back(GlobalRateLimiter::Create(LimiterOptions(id, 1s, listener, clock), stores.back()).value());
    }
  }
  // One second of demand (50/s for a, 400/s for b), then a refresh each.
  void Second() {
    for (int i = 0; i < 400; ++i) {
      clock.Advance(2500us);
      if (i % 8 == 0) (void)limiters[0]->TryTake(clock.Now());
      (void)limiters[1]->TryTake(clock.Now());
    }
    for (auto& l : limiters) (void)l->RefreshOnce();
  }
  void ExpectConverged() {
    EXPECT_EQ(limiters[0]->state(), GlobalLimitState::kLeased);
    EXPECT_NEAR(limiters[0]->local_rate(), 50, 1);
    EXPECT_NEAR(limiters[1]->local_rate(), 250, 1);
    EXPECT_EQ(limiters[1]->instances(), 2);
  }

  ManualClock clock;
  std::vector<std::shared_ptr<RedisLeaseStore>> stores;
  std::vector<std::unique_ptr<GlobalRateLimiter>> limiters;
};

// A redis-server with the fleet's ACL for each test.
class RedisLeaseStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis.AddUser(kAcl);
    ASSERT_TRUE(redis.Start());
  }
  RedisProcess redis;
};

TEST_F(RedisLeaseStoreTest, OnlyTheFleetUserMayWriteTheShares) {
  RedisFleet fleet(redis);
  for (int i = 0; i < 3; ++i) fleet.Second();
  EXPECT_EQ(redis.Command({"HLEN", "sg:{search}:demand"}, "fleet", "secret"), "2");
  EXPECT_EQ(redis.Command({"HSET", "sg:{search}:demand", "a", "1e9 1e9 9999999999999"}).substr(0, 6), "NOAUTH");
  EXPECT_EQ(redis.Command({"SET", "other", "x"}, "fleet", "secret").substr(0, 6), "NOPERM");
  EXPECT_EQ(redis.Command({"FLUSHALL"}, "fleet", "secret").substr(0, 6), "NOPERM");
}

TEST_F(RedisLeaseStoreTest, TwoLimitersConvergeToTheirFairShares) {
  RedisFleet fleet(redis);
  for (int i = 0; i < 4; ++i) fleet.Second();
  fleet.ExpectConverged();
}

// The script's silent instances (lease_store.h), on Redis's own clock: a
// 200 ms lease, so the test waits real time, about a second in all.
TEST_F(RedisLeaseStoreTest, ASilentInstanceKeepsItsStaticShareForTwoMoreLeasesThenIsForgotten) {
  auto store = [&](const char* limit) {
    return RedisLeaseStore::Create({.address = redis.address(),
                                    .user = "fleet",
                                    .password = "secret",
                                    .prefix = "sg",
                                    .limit_name = limit,
                                    .capacity = 300,
                                    .lease_length = 200ms})
        .value();
  };
  auto a = store("silent"), b = store("silent");
  const TimePoint now = Clock::Real().Now();
  ASSERT_TRUE(a->Refresh("a", 400, now).ok());
  ASSERT_TRUE(b->Refresh("b", 400, now).ok());
  std::this_thread::sleep_for(300ms);  // a's lease is over; a may be cut off, spending 150/s alone
  Result<Lease> lease = b->Refresh("b", 400, Clock::Real().Now());
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_DOUBLE_EQ(lease->rate, 150);
  EXPECT_EQ(lease->instances, 2);
  std::this_thread::sleep_for(500ms);  // past a's lease and two more: forgotten
  lease = b->Refresh("b", 400, Clock::Real().Now());
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  EXPECT_DOUBLE_EQ(lease->rate, 300);
  EXPECT_EQ(lease->instances, 1);
}

TEST_F(RedisLeaseStoreTest, WrongPasswordIsRefusedReportedAndFallsBack) {
  stormguard::testkit::RecordingListener events;
  RedisFleet fleet(redis, "wrong", &events);
  EXPECT_EQ(fleet.limiters[0]->RefreshOnce().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(fleet.limiters[0]->RefreshOnce().code(), StatusCode::kUnauthenticated);  // backing off
  EXPECT_EQ(fleet.limiters[0]->state(), GlobalLimitState::kFallback);
  EXPECT_DOUBLE_EQ(fleet.limiters[0]->local_rate(), 300);  // initial_instances = 1
  ASSERT_EQ(events.Of(EventKind::kGaveUp).size(), 2u);
  for (const Event& e : events.Of(EventKind::kGaveUp)) {
    EXPECT_EQ(e.to_state, static_cast<std::uint8_t>(GlobalLimitFault::kAuthRefused));
  }
}

TEST_F(RedisLeaseStoreTest, KilledRedisKeepsTheLeaseThenTheStaticShareThenConvergesAfterRestart) {
  RedisFleet fleet(redis);
  for (int i = 0; i < 4; ++i) fleet.Second();
  fleet.ExpectConverged();
  redis.Kill();
  for (int i = 0; i < 2; ++i) fleet.Second();  // refreshes fail, the 4 s leases hold
  EXPECT_EQ(fleet.limiters[1]->RefreshOnce().code(), StatusCode::kUnavailable);
  fleet.ExpectConverged();
  for (int i = 0; i < 3; ++i) fleet.Second();
  for (auto& l : fleet.limiters) {
    EXPECT_EQ(l->state(), GlobalLimitState::kFallback);
    EXPECT_DOUBLE_EQ(l->local_rate(), 150);  // 300 / the 2 instances last counted
  }
  ASSERT_TRUE(redis.Start());  // empty: no persistence
  for (int i = 0; i < 5; ++i) fleet.Second();
  fleet.ExpectConverged();
}

TEST_F(RedisLeaseStoreTest, AFrozenRedisCostsOneCommandTimeout) {
  RedisFleet fleet(redis);
  fleet.Second();
  redis.Freeze();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(fleet.limiters[0]->RefreshOnce().code(), StatusCode::kUnavailable);
  EXPECT_EQ(fleet.limiters[0]->RefreshOnce().code(), StatusCode::kUnavailable);  // backing off: no wait
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);                       // command_timeout is 200 ms
  redis.Thaw();
}

// The refresher threads on the real clock, with demand from two threads.
TEST_F(RedisLeaseStoreTest, BackgroundRefreshersConvergeOnTheRealClock) {
  std::shared_ptr<Executor> executor = Executor::Create({.threads = 2}).value();
  std::vector<std::unique_ptr<GlobalRateLimiter>> limiters;
  for (const char* id : {"a", "b"}) {
    GlobalRateLimiterOptions o = LimiterOptions(id, 100ms, nullptr, Clock::Real());
    o.executor = executor.get();
    limiters.push_back(GlobalRateLimiter::Create(o, Store(redis, "secret", Clock::Real())).value());
  }
  std::atomic<bool> done{false};
  const auto drive = [&](GlobalRateLimiter& l, int calls, Duration pause) {
    while (!done.load()) {
      for (int i = 0; i < calls; ++i) (void)l.TryTake(Clock::Real().Now());
      std::this_thread::sleep_for(pause);
    }
  };
  std::jthread a([&] { drive(*limiters[0], 1, 10ms); });  // up to 100/s
  std::jthread b([&] { drive(*limiters[1], 4, 5ms); });   // up to 800/s
  bool converged = false;
  for (int i = 0; i < 100 && !converged; ++i) {
    std::this_thread::sleep_for(50ms);
    const double ra = limiters[0]->local_rate();
    converged = limiters[0]->state() == GlobalLimitState::kLeased && ra > 20 && ra < 120 &&
                std::abs(limiters[0]->local_rate() + limiters[1]->local_rate() - 300) < 30;
  }
  done = true;
  EXPECT_TRUE(converged) << limiters[0]->local_rate() << " " << limiters[1]->local_rate();
}

}  // namespace
}  // namespace stormguard::redis
