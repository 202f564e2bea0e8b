#include "stormguard/fleet/global_rate_limiter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fleet/global_limit_fixture.h"
#include "stormguard/metrics/metrics_listener.h"
#include "testkit/recording_listener.h"
#include "testkit/wait_until.h"

namespace stormguard::global_limit_test {
namespace {

using ::testing::HasSubstr;

std::vector<double> Skewed() { return {20, 40, 60, 80, 100, 120, 140, 160}; }  // 1:2:...:8

void ExpectShares(Fleet& fleet, const std::vector<double>& want) {
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(fleet.limiters[i]->local_rate(), want[i], want[i] * 0.01 + 0.5) << "instance " << i;
    // Calls admitted in the last second: the share, give or take its burst (36 * share / 360).
    EXPECT_NEAR(static_cast<double>(fleet.admitted[i]), want[i], 1 + want[i] / 10) << "instance " << i;
  }
}

TEST(GlobalRateLimiterTest, SkewedDemandsConvergeToTheFairShares) {
  Fleet fleet(360, Skewed());
  fleet.Run(4s);  // two refreshes to learn the demands, two to settle
  fleet.Run(1s);
  ExpectShares(fleet, FairShares(360, Skewed()));  // 20, 40, then 50 each
}

TEST(GlobalRateLimiterTest, FollowsADemandThatFalls) {
  Fleet fleet(360, Skewed());
  fleet.Run(5s);
  fleet.demand[7] = 5;  // the busiest instance goes quiet
  fleet.Run(3s);        // it gives back at its next refresh, the others take it at theirs
  fleet.Run(1s);
  std::vector<double> want = Skewed();
  want[7] = 5;
  ExpectShares(fleet, FairShares(360, want));
  EXPECT_NEAR(fleet.limiters[6]->local_rate(), 59, 0.5);
}

TEST(GlobalRateLimiterTest, ExpiredLeaseFallsBackToTheStaticShareThenConvergesAgain) {
  testkit::RecordingListener events;
  Fleet fleet(360, Skewed(), &events);
  fleet.Run(5s);
  fleet.store->fault = Status::Unavailable("store down");
  fleet.Run(2s);  // leases (4 s) still valid: the shares hold
  EXPECT_EQ(fleet.limiters[0]->state(), GlobalLimitState::kLeased);
  EXPECT_NEAR(fleet.limiters[7]->local_rate(), 50, 0.5);
  fleet.Run(3s);
  for (const auto& l : fleet.limiters) {
    EXPECT_EQ(l->state(), GlobalLimitState::kFallback);
    EXPECT_DOUBLE_EQ(l->local_rate(), 360.0 / 8);  // never unlimited, never zero
  }
  fleet.memory->Clear();  // the store comes back empty
  fleet.store->fault = Status::Ok();
  fleet.Run(4s);
  fleet.Run(1s);
  ExpectShares(fleet, FairShares(360, Skewed()));

  int expired = 0;
  int failed = 0;
  for (const Event& e : events.Of(EventKind::kGaveUp)) {
    EXPECT_EQ(e.policy, PolicyId::kGlobalRateLimit);
    expired += e.to_state == static_cast<std::uint8_t>(GlobalLimitFault::kLeaseExpired);
    failed += e.to_state == static_cast<std::uint8_t>(GlobalLimitFault::kRefreshFailed);
  }
  EXPECT_EQ(expired, 8);
  EXPECT_GE(failed, 8 * 4);
  int fallbacks = 0;
  for (const Event& e : events.Of(EventKind::kStateChanged)) {
    fallbacks += e.to_state == static_cast<std::uint8_t>(GlobalLimitState::kFallback);
  }
  EXPECT_EQ(fallbacks, 8);
}

TEST(GlobalRateLimiterTest, RefusedCredentialsAreAFaultOfTheirOwn) {
  testkit::RecordingListener events;
  Fleet fleet(100, {50}, &events);
  fleet.store->fault = Status(StatusCode::kUnauthenticated, "WRONGPASS");
  fleet.Run(1s);
  EXPECT_EQ(fleet.limiters[0]->state(), GlobalLimitState::kFallback);
  EXPECT_DOUBLE_EQ(fleet.limiters[0]->local_rate(), 100);  // initial_instances = 1
  ASSERT_FALSE(events.Of(EventKind::kGaveUp).empty());
  EXPECT_EQ(events.Of(EventKind::kGaveUp)[0].to_state, static_cast<std::uint8_t>(GlobalLimitFault::kAuthRefused));
}

TEST(GlobalRateLimiterTest, FaultsAndStatesAreMetrics) {
  MetricsListener metrics;
  Fleet fleet(100, {50}, &metrics.For("search"));
  fleet.Run(2s);
  fleet.store->fault = Status(StatusCode::kPermissionDenied, "NOPERM");
  fleet.Run(5s);
  const std::string text = metrics.Scrape();
  EXPECT_THAT(text, HasSubstr("stormguard_global_rate_limit_faults_total{name=\"search\",fault=\"auth_refused\"} 5"));
  EXPECT_THAT(text, HasSubstr("stormguard_global_rate_limit_faults_total{name=\"search\",fault=\"lease_expired\"} 1"));
  EXPECT_THAT(text, HasSubstr("stormguard_global_rate_limit_state{name=\"search\",state=\"fallback\"} 1"));
}

TEST(GlobalRateLimiterTest, DenyFallbackSpendsNothing) {
  ManualClock clock;
  auto store = std::make_shared<FaultyStore>(std::make_shared<InMemoryLeaseStore>(100, 2s));
  store->fault = Status::Unavailable("down");
  auto limiter = GlobalRateLimiter::Create({.name = "deny",
                                            .instance_id = "a",
                                            .limit = 100,
                                            .refresh_interval = 1s,
                                            .lease_length = 2s,
                                            .fallback = LeaseFallback::kDeny,
                                            .clock = &clock},
                                           store)
                     .value();
  EXPECT_FALSE(limiter->RefreshOnce().ok());
  EXPECT_EQ(limiter->local_rate(), 0);
  Status s = limiter->TryAcquire(clock.Now());
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_THAT(s.message(), HasSubstr("'deny'"));
}

TEST(GlobalRateLimiterTest, HostileStoreRepliesAreClamped) {
  Fleet fleet(100, {50});
  GlobalRateLimiter& l = *fleet.limiters[0];
  const TimePoint now = fleet.clock.Now();
  fleet.store->forced = Lease{.rate = 1e300, .expiry = now + 24h, .instances = -3};
  ASSERT_TRUE(l.RefreshOnce().ok());
  EXPECT_EQ(l.local_rate(), 100);
  EXPECT_EQ(l.instances(), 1);
  fleet.clock.Advance(4s + 1ms);  // the expiry was cut to lease_length
  fleet.store->fault = Status::Unavailable("down");
  (void)l.RefreshOnce();
  EXPECT_EQ(l.state(), GlobalLimitState::kFallback);

  fleet.store->fault = Status::Ok();
  fleet.store->forced = Lease{.rate = -7, .expiry = fleet.clock.Now() + 1s, .instances = 4};
  ASSERT_TRUE(l.RefreshOnce().ok());
  EXPECT_EQ(l.local_rate(), 0);
  fleet.store->forced = Lease{.rate = std::numeric_limits<double>::quiet_NaN(), .expiry = fleet.clock.Now() + 1s};
  EXPECT_EQ(l.RefreshOnce().code(), StatusCode::kInternal);
  EXPECT_EQ(l.local_rate(), 0);  // the last valid lease still holds
  fleet.store->forced = Lease{.rate = std::numeric_limits<double>::infinity(), .expiry = fleet.clock.Now() + 1s};
  ASSERT_TRUE(l.RefreshOnce().ok());
  EXPECT_EQ(l.local_rate(), 100);
}

TEST(GlobalRateLimiterTest, AnExecutorRefreshesEveryIntervalUntilTheLimiterIsGone) {
  ManualClock clock;
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  auto executor = Executor::Create({.threads = 1, .timers = timers.get()}).value();
  auto store = std::make_shared<FaultyStore>(std::make_shared<InMemoryLeaseStore>(100, 4s));
  auto limiter = GlobalRateLimiter::Create({.name = "timed",
                                            .instance_id = "a",
                                            .limit = 100,
                                            .refresh_interval = 1s,
                                            .lease_length = 4s,
                                            .clock = &clock,
                                            .executor = executor.get()},
                                           store)
                     .value();
  for (int refreshes = 1; refreshes <= 3; ++refreshes) {
    timers->RunDue();  // the refresh goes to the executor's worker
    ASSERT_TRUE(testkit::WaitUntil([&] { return store->calls.load() == refreshes; }, "a refresh"));
    ASSERT_TRUE(testkit::WaitUntil([&] { return timers->armed() == 1; }, "the next refresh armed"));
    clock.Advance(1s);
  }
  EXPECT_EQ(limiter->state(), GlobalLimitState::kLeased);
  limiter.reset();  // cancels the armed refresh
  EXPECT_EQ(timers->armed(), 0u);
  EXPECT_EQ(timers->RunDue(), 0u);
}

TEST(GlobalRateLimiterTest, BadOptionsAreRefusedByName) {
  auto store = std::make_shared<InMemoryLeaseStore>(1, 1s);
  const auto error = [&](GlobalRateLimiterOptions o) {
    Result<std::unique_ptr<GlobalRateLimiter>> r = GlobalRateLimiter::Create(o, store);
    return r.ok() ? std::string() : r.status().message();
  };
  const GlobalRateLimiterOptions good{.name = "n", .instance_id = "i", .limit = 10};
  EXPECT_EQ(error(good), "");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double limit : {nan, inf, -1.0, 0.0, 1e12}) {
    GlobalRateLimiterOptions o = good;
    o.limit = limit;
    EXPECT_THAT(error(o), HasSubstr("limit:")) << limit;
  }
  GlobalRateLimiterOptions o = good;
  o.burst = -1;
  o.refresh_interval = -1s;
  o.lease_length = 24h;
  o.initial_instances = 0;
  o.name = "has space";
  o.instance_id = "";
  o.fallback = static_cast<LeaseFallback>(9);
  const std::string message = error(o);
  for (const char* field :
       {"burst:", "refresh_interval:", "lease_length:", "initial_instances:", "name:", "instance_id:", "fallback:"}) {
    EXPECT_THAT(message, HasSubstr(field));
  }
  EXPECT_THAT(GlobalRateLimiter::Create(good, nullptr).status().message(), HasSubstr("store:"));
}

}  // namespace
}  // namespace stormguard::global_limit_test
