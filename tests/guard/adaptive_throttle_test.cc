#include "stormguard/guard/adaptive_throttle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "stormguard/core/classifier.h"
#include "testkit/recording_listener.h"
#include "testkit/time_points.h"

namespace stormguard {
namespace throttle_test {
using namespace std::chrono_literals;
using ::testing::HasSubstr;
using testkit::kT0;

std::shared_ptr<AdaptiveThrottle> MakeThrottle(AdaptiveThrottleOptions o) {
  if (o.seed == 0) o.seed = 7;
  auto r = AdaptiveThrottle::Create(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// `requests` requests (Admit counts each, refused or not), `accepts` of them
// accepted, and a refusal from the backend unless all were.
void Fill(AdaptiveThrottle& t, TimePoint at, int requests, int accepts) {
  for (int i = 0; i < requests; ++i) (void)t.Admit(at);
  for (int i = 0; i < accepts; ++i) t.Record(at, OutcomeClass::kSuccess);
  if (accepts < requests) t.Record(at, OutcomeClass::kOverloaded);
}

TEST(AdaptiveThrottleTest, ValidateNamesEveryBadField) {
  auto r =
      AdaptiveThrottle::Create({.window = 0s, .k = 0.5, .min_requests = -1, .reject_on = {OutcomeClass::kSuccess}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  for (const char* field : {"window: ", "k: ", "min_requests: ", "reject_on: "}) {
    EXPECT_THAT(r.status().message(), HasSubstr(field));
  }
  for (double k : {std::nan(""), std::numeric_limits<double>::infinity(), 0.99, 100.5}) {
    EXPECT_THAT(AdaptiveThrottle::Create({.k = k}).status().message(), HasSubstr("k: ")) << k;
  }
  EXPECT_THAT(AdaptiveThrottle::Create({.reject_on = {OutcomeClass::kCancelled}}).status().message(),
              HasSubstr("reject_on: must not contain cancelled"));
  EXPECT_TRUE(AdaptiveThrottle::Create({.k = 1.0}).ok());
  EXPECT_TRUE(AdaptiveThrottle::Create({.k = 100.0}).ok());
  EXPECT_FALSE(AdaptiveThrottle::Create({.window = 2h}).ok());
  EXPECT_TRUE(AdaptiveThrottle::Create({.window = 1s, .min_requests = 0}).ok());
}

TEST(AdaptiveThrottleTest, ProbabilityFollowsTheFormulaAtSeveralPoints) {
  struct Point {
    double k;
    int requests, accepts;
    double p;
  };
  for (const Point& pt :
       {Point{2, 0, 0, 0.0}, Point{2, 10, 10, 0.0}, Point{2, 100, 50, 0.0}, Point{2, 100, 10, 80.0 / 101},
        Point{2, 100, 0, 100.0 / 101}, Point{1.1, 100, 10, 89.0 / 101}, Point{4, 100, 20, 20.0 / 101}}) {
    auto t = MakeThrottle({.k = pt.k, .min_requests = 0});
    Fill(*t, kT0, pt.requests, pt.accepts);
    EXPECT_EQ(t->Counts(kT0).requests, pt.requests);
    EXPECT_EQ(t->Counts(kT0).accepts, pt.accepts);
    EXPECT_NEAR(t->RejectProbability(kT0), pt.p, 1e-12) << pt.k << " " << pt.requests << " " << pt.accepts;
  }
}

TEST(AdaptiveThrottleTest, RefusesAboutTheShareTheFormulaSays) {
  auto t = MakeThrottle({.min_requests = 0});
  Fill(*t, kT0, 100'000, 10'000);  // p = 80000 / 100001, and barely moves over 10000 more
  int refused = 0;
  for (int i = 0; i < 10'000; ++i) refused += t->Admit(kT0).ok() ? 0 : 1;
  EXPECT_NEAR(refused / 10'000.0, 0.8, 0.02);
}

TEST(AdaptiveThrottleTest, ARefusalIsResourceExhaustedDoNotRetryAndReported) {
  testkit::RecordingListener listener;
  auto t = MakeThrottle({.min_requests = 0, .listener = &listener});
  Fill(*t, kT0, 1000, 0);
  Status refused;
  while (refused.ok()) refused = t->Admit(kT0);
  EXPECT_EQ(refused.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.source(), "adaptive_throttle");
  EXPECT_TRUE(refused.hints().do_not_retry);
  EXPECT_EQ(DefaultClassifier().Classify(refused), OutcomeClass::kDoNotRetry);
  EXPECT_THAT(refused.message(), HasSubstr("accepted 0 of"));
  ASSERT_GE(listener.Count(EventKind::kRejected), 1);
  EXPECT_EQ(listener.Last(EventKind::kRejected).policy, PolicyId::kAdaptiveThrottle);
}

TEST(AdaptiveThrottleTest, NothingIsRefusedBelowMinRequests) {
  auto t = MakeThrottle({.min_requests = 20});
  t->Record(kT0, OutcomeClass::kOverloaded);  // the backend refused: the formula applies
  for (int i = 0; i < 19; ++i) EXPECT_TRUE(t->Admit(kT0).ok()) << i;
  EXPECT_EQ(t->RejectProbability(kT0), 0.0);
  (void)t->Admit(kT0);  // the 20th counts itself: p = 20/21, refused or not
  EXPECT_NEAR(t->RejectProbability(kT0), 20.0 / 21, 1e-12);
}

TEST(AdaptiveThrottleTest, TheWindowForgetsOldRequests) {
  auto t = MakeThrottle({.window = 2min, .min_requests = 0});
  Fill(*t, kT0, 100, 0);
  EXPECT_GT(t->RejectProbability(kT0 + 1min), 0.9);
  // The window is 60 slices of 2 s: the slice of kT0 leaves it 2 min later at the latest.
  EXPECT_EQ(t->Counts(kT0 + 2min + 2s).requests, 0);
  EXPECT_EQ(t->RejectProbability(kT0 + 2min + 2s), 0.0);
  EXPECT_TRUE(t->Admit(kT0 + 2min + 2s).ok());
}

TEST(AdaptiveThrottleTest, OnlyTheRejectSetIsNotAnAccept) {
  auto t = MakeThrottle({});
  for (OutcomeClass c : {OutcomeClass::kSuccess, OutcomeClass::kPermanent, OutcomeClass::kTransient,
                         OutcomeClass::kAmbiguous, OutcomeClass::kOverloaded}) {
    ASSERT_TRUE(t->Admit(kT0).ok());
    t->Record(kT0, c);
  }
  EXPECT_EQ(t->Counts(kT0).requests, 5);
  EXPECT_EQ(t->Counts(kT0).accepts, 4);
  ASSERT_TRUE(t->Admit(kT0).ok());
  t->Record(kT0, OutcomeClass::kCancelled);  // says nothing about the backend: forgotten
  EXPECT_EQ(t->Counts(kT0).requests, 5);

  auto strict = MakeThrottle({.reject_on = {OutcomeClass::kOverloaded, OutcomeClass::kTransient}});
  ASSERT_TRUE(strict->Admit(kT0).ok());
  strict->Record(kT0, OutcomeClass::kTransient);
  EXPECT_EQ(strict->Counts(kT0).accepts, 0);
}

TEST(AdaptiveThrottleTest, NothingIsRefusedWhileTheWindowHoldsNoRefusal) {
  auto t = MakeThrottle({.min_requests = 0});
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(t->Admit(kT0).ok()) << i;  // all in flight: no accept yet
  EXPECT_EQ(t->RejectProbability(kT0), 0.0);
  t->Record(kT0, OutcomeClass::kOverloaded);
  EXPECT_NEAR(t->RejectProbability(kT0), 100.0 / 101, 1e-12);
  // The refusal leaves the window with its slice: calm again.
  EXPECT_GT(t->RejectProbability(kT0 + 1min), 0.0);
  EXPECT_EQ(t->RejectProbability(kT0 + 2min + 2s), 0.0);
}

TEST(AdaptiveThrottleTest, ASeedFixesTheDecisions) {
  auto a = MakeThrottle({.min_requests = 0, .seed = 42});
  auto b = MakeThrottle({.min_requests = 0, .seed = 42});
  for (int i = 0; i < 500; ++i) {
    const bool admitted = a->Admit(kT0 + i * 10ms).ok();
    ASSERT_EQ(admitted, b->Admit(kT0 + i * 10ms).ok()) << i;
    if (admitted) {
      const OutcomeClass answer = i % 5 == 0 ? OutcomeClass::kSuccess : OutcomeClass::kOverloaded;
      a->Record(kT0 + i * 10ms, answer);
      b->Record(kT0 + i * 10ms, answer);
    }
  }
  EXPECT_GT(a->rejected(), 0);
  EXPECT_EQ(a->rejected(), b->rejected());
}

}  // namespace throttle_test
}  // namespace stormguard
