#include "stormguard/fleet/replica_set.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <thread>

#include "testkit/recording_listener.h"

namespace stormguard {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

std::vector<EndpointSpec> Replicas(int n) {
  std::vector<EndpointSpec> out;
  for (int i = 0; i < n; ++i) out.push_back({"10.0.0." + std::to_string(i + 1) + ":80"});
  return out;
}

struct SetFixture {
  explicit SetFixture(int n, OutlierDetectionOptions outlier = {}, PickerKind picker = PickerKind::kRoundRobin)
      : set(ReplicaSet::Create({.picker = picker, .outlier = outlier, .listener = &events}, Replicas(n)).value()) {}

  // One attempt on whatever the set picks; returns its address.
  std::string Call(OutcomeClass outcome, Duration latency = 1ms) {
    Tried tried;
    PickedEndpoint e = set->Pick(now, tried, random);
    std::string address = e.address();
    now += latency;
    set->Report(e, outcome, now);
    return address;
  }
  // One attempt on `address` (picked until it comes up).
  void CallOn(const std::string& address, OutcomeClass outcome) {
    for (int i = 0; i < 1000; ++i) {
      Tried tried;
      PickedEndpoint e = set->Pick(now, tried, random);
      if (e.address() == address) {
        set->Report(e, outcome, now);
        return;
      }
    }
    FAIL() << address << " never picked";
  }
  bool Ejected(const std::string& address) const {
    for (const auto& s : set->Endpoints()) {
      if (s.address == address) return s.ejected;
    }
    return false;
  }

  testkit::RecordingListener events;
  std::unique_ptr<ReplicaSet> set;
  TimePoint now = TimePoint(1h);
  Random random{11};
};

TEST(ReplicaSetTest, ConsecutiveFailuresEjectAndTheEjectionTimeEndsIt) {
  SetFixture f(10);
  for (int i = 0; i < 4; ++i) f.CallOn("10.0.0.3:80", OutcomeClass::kTransient);
  EXPECT_FALSE(f.Ejected("10.0.0.3:80"));
  f.CallOn("10.0.0.3:80", OutcomeClass::kAmbiguous);
  EXPECT_TRUE(f.Ejected("10.0.0.3:80"));
  for (int i = 0; i < 100; ++i) ASSERT_NE(f.Call(OutcomeClass::kSuccess), "10.0.0.3:80");
  f.now += 30s;  // base ejection time, first ejection
  std::map<std::string, int> picks;
  for (int i = 0; i < 100; ++i) ++picks[f.Call(OutcomeClass::kSuccess)];
  EXPECT_EQ(picks["10.0.0.3:80"], 10);
  const auto changes = f.events.Of(EventKind::kStateChanged);
  ASSERT_EQ(changes.size(), 2U);
  EXPECT_EQ(changes[0].policy, PolicyId::kOutlierDetection);
  EXPECT_EQ(changes[0].to_state, static_cast<std::uint8_t>(EndpointState::kEjectedConsecutiveFailures));
  EXPECT_EQ(changes[0].reason, "consecutive failures");
  EXPECT_EQ(changes[1].from_state, static_cast<std::uint8_t>(EndpointState::kEjectedConsecutiveFailures));
  EXPECT_EQ(changes[1].to_state, static_cast<std::uint8_t>(EndpointState::kAdmitted));
}

TEST(ReplicaSetTest, ASuccessOrACallersMistakeBreaksTheRun) {
  SetFixture f(10);
  for (int i = 0; i < 4; ++i) f.CallOn("10.0.0.1:80", OutcomeClass::kTransient);
  f.CallOn("10.0.0.1:80", OutcomeClass::kPermanent);  // a 4xx: the replica is fine
  for (int i = 0; i < 4; ++i) f.CallOn("10.0.0.1:80", OutcomeClass::kOverloaded);
  f.CallOn("10.0.0.1:80", OutcomeClass::kCancelled);  // a lost hedge: no verdict
  EXPECT_FALSE(f.Ejected("10.0.0.1:80"));
  f.CallOn("10.0.0.1:80", OutcomeClass::kDeadlineExceeded);
  EXPECT_TRUE(f.Ejected("10.0.0.1:80"));
}

TEST(ReplicaSetTest, AnAttemptCutShortByAHedgeStillTeachesThePickerItsLatency) {
  SetFixture f(2, {}, PickerKind::kPeakEwma);
  Tried tried;
  PickedEndpoint slow = f.set->Pick(f.now, tried, f.random);
  const std::string slow_address = slow.address();
  f.set->Report(slow, OutcomeClass::kCancelled, f.now + 300ms);  // the hedge won after 300 ms
  for (int i = 0; i < 100; ++i) ASSERT_NE(f.Call(OutcomeClass::kSuccess, 1ms), slow_address);
  EXPECT_FALSE(f.Ejected(slow_address));
  const Event first = f.events.Of(EventKind::kAttemptEnded).front();  // each report names its endpoint
  EXPECT_EQ(first.policy, PolicyId::kOutlierDetection);
  EXPECT_EQ(first.outcome, OutcomeClass::kCancelled);
  EXPECT_EQ(first.duration, 300ms);
}

TEST(ReplicaSetTest, EjectionTimeGrowsWithRepeatsUpToTheMax) {
  SetFixture f(10, {.base_ejection_time = 10s, .max_ejection_time = 25s});
  const std::string sick = "10.0.0.2:80";
  for (Duration expected : {10s, 20s, 25s}) {
    for (int i = 0; i < 5; ++i) f.CallOn(sick, OutcomeClass::kTransient);
    ASSERT_TRUE(f.Ejected(sick));
    f.now += expected - 1ms;
    f.Call(OutcomeClass::kSuccess, 0ms);
    EXPECT_TRUE(f.Ejected(sick)) << expected.count();
    f.now += 1ms;
    f.Call(OutcomeClass::kSuccess, 0ms);
    EXPECT_FALSE(f.Ejected(sick)) << expected.count();
  }
}

TEST(ReplicaSetTest, NoMoreThanTheCapIsEjectedButAlwaysOne) {
  SetFixture f(3);  // 10% of 3: one may go
  for (int i = 0; i < 5; ++i) f.CallOn("10.0.0.1:80", OutcomeClass::kTransient);
  for (int i = 0; i < 5; ++i) f.CallOn("10.0.0.2:80", OutcomeClass::kTransient);
  EXPECT_TRUE(f.Ejected("10.0.0.1:80"));
  EXPECT_FALSE(f.Ejected("10.0.0.2:80"));
  SetFixture none(3, {.max_ejection_percent = 0});
  for (int i = 0; i < 5; ++i) none.CallOn("10.0.0.1:80", OutcomeClass::kTransient);
  EXPECT_FALSE(none.Ejected("10.0.0.1:80"));
}

TEST(ReplicaSetTest, ASuccessRateFarBelowTheSetsEjectsAfterAnInterval) {
  SetFixture f(6, {.consecutive_failures = 0, .interval = 10s, .success_rate_request_volume = 50},
               PickerKind::kRoundRobin);
  f.Call(OutcomeClass::kSuccess, 0ms);  // starts the interval clock
  int gray_calls = 0;
  for (int i = 0; i < 600; ++i) {  // 100 each; 10.0.0.4 fails half
    Tried tried;
    PickedEndpoint e = f.set->Pick(f.now, tried, f.random);
    const bool fails = e.address() == "10.0.0.4:80" && gray_calls++ % 2 == 0;
    f.set->Report(e, fails ? OutcomeClass::kTransient : OutcomeClass::kSuccess, f.now);
  }
  EXPECT_FALSE(f.Ejected("10.0.0.4:80"));
  f.now += 10s;
  f.Call(OutcomeClass::kSuccess, 0ms);  // the interval ends: the sweep judges it
  EXPECT_TRUE(f.Ejected("10.0.0.4:80"));
  EXPECT_EQ(f.events.Last(EventKind::kStateChanged).to_state,
            static_cast<std::uint8_t>(EndpointState::kEjectedSuccessRate));
  EXPECT_EQ(f.events.Last(EventKind::kStateChanged).endpoint, "10.0.0.4:80");
}

TEST(ReplicaSetTest, TooFewJudgedHostsEjectNothingBySuccessRate) {
  SetFixture f(4, {.consecutive_failures = 0, .success_rate_request_volume = 10});  // minimum hosts 5
  f.Call(OutcomeClass::kSuccess, 0ms);
  for (int i = 0; i < 400; ++i) f.Call(i % 4 == 0 ? OutcomeClass::kTransient : OutcomeClass::kSuccess, 0ms);
  f.now += 10s;
  f.Call(OutcomeClass::kSuccess, 0ms);
  EXPECT_TRUE(f.events.Of(EventKind::kStateChanged).empty());
}

// A gray replica failing half its calls as fast as the others answer: peak
// EWMA sees its failures through the penalty, so it gets far less than its
// third of the calls, ejection off. Without the penalty it looks the same.
TEST(ReplicaSetTest, PeakEwmaSendsLittleToAReplicaThatFailsHalfItsCallsFast) {
  const auto gray_share = [](Duration penalty) {
    auto set = ReplicaSet::Create({.picker = PickerKind::kPeakEwma,
                                   .load = {.decay = 1s, .initial_latency = 1ms, .failure_penalty = penalty},
                                   .outlier = {.consecutive_failures = 0, .success_rate_stdev_factor = 0}},
                                  Replicas(3))
                   .value();
    Random random{5};
    TimePoint now = TimePoint(1h);
    int gray = 0, flip = 0;
    for (int i = 0; i < 20'000; ++i) {  // 20 s at one call per ms
      Tried tried;
      PickedEndpoint e = set->Pick(now, tried, random);
      const bool on_gray = e.address() == "10.0.0.1:80";
      gray += on_gray;
      now += 1ms;
      set->Report(e, on_gray && (++flip % 2 == 0) ? OutcomeClass::kTransient : OutcomeClass::kSuccess, now);
    }
    return gray / 20'000.0;
  };
  EXPECT_LT(gray_share(1s), 0.05);
  EXPECT_GT(gray_share(0s), 0.25);
}

TEST(ReplicaSetTest, RetriesGoToAnotherReplicaWhileOneIsLeft) {
  SetFixture f(3, {}, PickerKind::kPeakEwma);
  Tried tried;
  std::set<std::string> seen;
  for (int i = 0; i < 3; ++i) seen.insert(f.set->Pick(f.now, tried, f.random).address());
  EXPECT_EQ(seen.size(), 3U);
  EXPECT_FALSE(f.set->Pick(f.now, tried, f.random).address().empty());  // all tried: any
}

TEST(ReplicaSetTest, UpdateKeepsStateOfStayersAndCallsInFlightToLeavers) {
  SetFixture f(3);
  for (int i = 0; i < 5; ++i) f.CallOn("10.0.0.1:80", OutcomeClass::kTransient);
  ASSERT_TRUE(f.Ejected("10.0.0.1:80"));
  Tried tried;
  PickedEndpoint in_flight;
  while (!in_flight || in_flight.address() != "10.0.0.2:80") in_flight = f.set->Pick(f.now, tried = {}, f.random);
  ASSERT_TRUE(f.set->Update({{"10.0.0.1:80"}, {"10.0.0.3:80"}, {"10.0.0.9:80"}}).ok());
  EXPECT_TRUE(f.Ejected("10.0.0.1:80"));  // stayed: still ejected
  EXPECT_EQ(f.set->size(), 3U);
  EXPECT_EQ(in_flight.get()->load().outstanding(), 1);        // the leaver lives on for its call
  f.set->Report(in_flight, OutcomeClass::kTransient, f.now);  // after it left: changes nothing
  for (int i = 0; i < 50; ++i) ASSERT_NE(f.Call(OutcomeClass::kSuccess), "10.0.0.2:80");
}

TEST(ReplicaSetTest, AnInvalidUpdateNamesTheEntryAndKeepsTheOldSet) {
  SetFixture f(2);
  const std::string too_long(300, 'a');
  const std::vector<std::pair<std::vector<EndpointSpec>, std::string>> bad = {
      {{{""}}, "endpoints[0].address"},
      {{{too_long}}, "endpoints[0].address"},
      {{{"a:1"}, {"b c:1"}}, "endpoints[1].address"},
      {{{"a:1"}, {"a:1"}}, "endpoints[1].address: repeats endpoints[0]"},
      {{{"a:1", std::nan("")}}, "endpoints[0].weight"},
      {{{"a:1", 0.0}}, "endpoints[0].weight"},
      {{{"a:1", 1e300}}, "endpoints[0].weight"},
  };
  for (const auto& [endpoints, expected] : bad) {
    Status s = f.set->Update(endpoints);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), HasSubstr(expected));
  }
  EXPECT_EQ(f.set->size(), 2U);
  EXPECT_FALSE(f.set->Update(std::vector<EndpointSpec>(kMaxEndpoints + 1)).ok());
}

TEST(ReplicaSetTest, OptionsOutOfRangeAreNamed) {
  const auto invalid = [](OutlierDetectionOptions o) {
    auto r = ReplicaSet::Create({.outlier = o});
    return r.ok() ? std::string() : std::string(r.status().message());
  };
  EXPECT_THAT(invalid({.consecutive_failures = -1}), HasSubstr("outlier_detection.consecutive_failures"));
  EXPECT_THAT(invalid({.interval = 0s}), HasSubstr("outlier_detection.interval"));
  EXPECT_THAT(invalid({.base_ejection_time = 2h}), HasSubstr("outlier_detection.base_ejection_time"));
  EXPECT_THAT(invalid({.max_ejection_time = 1s}), HasSubstr("outlier_detection.max_ejection_time"));
  EXPECT_THAT(invalid({.max_ejection_percent = std::nan("")}), HasSubstr("max_ejection_percent"));
  EXPECT_THAT(invalid({.max_ejection_percent = 101}), HasSubstr("max_ejection_percent"));
  EXPECT_THAT(invalid({.success_rate_stdev_factor = -1}), HasSubstr("success_rate_stdev_factor"));
  EXPECT_THAT(invalid({.success_rate_minimum_hosts = 0}), HasSubstr("success_rate_minimum_hosts"));
  EXPECT_THAT(invalid({.success_rate_request_volume = 0}), HasSubstr("success_rate_request_volume"));
  EXPECT_TRUE(ReplicaSet::Create({}).ok());
}

TEST(ReplicaSetTest, ReconfigureChangesPickerAndVerdictsButKeepsEndpointState) {
  SetFixture f(10);
  for (int i = 0; i < 5; ++i) f.CallOn("10.0.0.5:80", OutcomeClass::kTransient);
  ASSERT_TRUE(f.Ejected("10.0.0.5:80"));
  ASSERT_TRUE(
      f.set->Reconfigure({.picker = PickerKind::kLeastOutstanding, .outlier = {.consecutive_failures = 2}}).ok());
  EXPECT_TRUE(f.Ejected("10.0.0.5:80"));
  EXPECT_EQ(f.set->options().picker, PickerKind::kLeastOutstanding);
  for (int i = 0; i < 2; ++i) f.CallOn("10.0.0.6:80", OutcomeClass::kTransient);
  EXPECT_FALSE(f.Ejected("10.0.0.6:80"));  // the cap: one of ten is out already
  ASSERT_TRUE(f.set
                  ->Reconfigure({.picker = PickerKind::kRoundRobin,
                                 .outlier = {.consecutive_failures = 2, .max_ejection_percent = 50}})
                  .ok());
  f.CallOn("10.0.0.6:80", OutcomeClass::kTransient);  // its run went on while the cap held it
  EXPECT_TRUE(f.Ejected("10.0.0.6:80"));
  Status bad = f.set->Reconfigure({.outlier = {.interval = -1s}});
  EXPECT_THAT(std::string(bad.message()), HasSubstr("outlier_detection.interval"));
  EXPECT_EQ(f.set->options().outlier.max_ejection_percent, 50);
  EXPECT_EQ(f.set->options().listener, &f.events);  // the listener stays
}

TEST(ReplicaSetTest, AnEmptySetPicksNothing) {
  SetFixture f(0);
  Tried tried;
  EXPECT_FALSE(f.set->Pick(f.now, tried, f.random));
}

TEST(ReplicaSetTest, PicksAndUpdatesFromManyThreadsAtOnce) {
  SetFixture f(20, {.consecutive_failures = 3, .base_ejection_time = 1ms});
  std::atomic<bool> stop{false};
  std::thread updater([&] {
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(f.set->Update(Replicas(10 + i % 10)).ok());
    stop = true;
  });
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t) {
    callers.emplace_back([&, t] {
      Random random(static_cast<std::uint64_t>(t));
      TimePoint now = f.now;
      for (int i = 0; i < 5000 || !stop; ++i) {
        Tried tried;
        PickedEndpoint e = f.set->Pick(now, tried, random);
        ASSERT_TRUE(e);
        now += 1ms;
        f.set->Report(e, i % 3 == 0 ? OutcomeClass::kTransient : OutcomeClass::kSuccess, now);
      }
    });
  }
  updater.join();
  for (auto& c : callers) c.join();
  for (const auto& s : f.set->Endpoints()) EXPECT_EQ(s.outstanding, 0) << s.address;
}

}  // namespace
}  // namespace stormguard
