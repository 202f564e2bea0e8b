// Listener::wants_attempt_started, asked once at Build(): a pipeline sends
// kAttemptStarted only to listeners that want it, blocking or asynchronous,
// and every kAttemptEnded either way. The metrics listeners want none.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/metrics/metrics_listener.h"
#include "testkit/recording_listener.h"

namespace stormguard {
namespace {
using testkit::ManualEnv;
using testkit::RecordingListener;
using testkit::Unwrap;

struct Case {
  bool wants_started;
  AttemptTiming timing;
  bool retry;  // with a retry, it reports the ends; without, the pipeline does
};

// Three calls: one blocking that fails once and is retried (or fails, without
// a retry), two that succeed (one blocking, one asynchronous).
void RunCalls(const Case& c, RecordingListener& listener) {
  ManualEnv env;
  PipelineBuilder b(env.options(&listener));
  if (c.retry) b.AddRetry({.max_attempts = 2, .backoff = {.base = Duration::zero(), .jitter = Jitter::kNone}});
  const PipelineRef p = Unwrap(b.AddBulkhead({.max_concurrent = 4}).Build());
  CallContext ctx;
  int calls = 0;
  (void)p.Execute(ctx, [&](CallContext&) { return ++calls == 1 ? Status::Unavailable("once") : Status::Ok(); });
  ASSERT_TRUE(p.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
  std::optional<Status> got;
  p.ExecuteAsync(
      ctx, [](CallContext&, Completion<Status> done) { done(Status::Ok()); }, [&](Status s) { got = std::move(s); });
  ASSERT_TRUE(got.has_value() && got->ok());
}

TEST(AttemptStartedInterestTest, APipelineSendsTheStartOnlyToListenersThatWantIt) {
  for (const Case c : {Case{true, AttemptTiming::kEvery, true}, Case{false, AttemptTiming::kEvery, true},
                       Case{true, AttemptTiming::kSampled, true}, Case{false, AttemptTiming::kSampled, true},
                       Case{true, AttemptTiming::kSampled, false}, Case{false, AttemptTiming::kSampled, false}}) {
    RecordingListener listener(c.timing, c.wants_started);
    RunCalls(c, listener);
    const int attempts = c.retry ? 4 : 3;
    const std::string what = std::string(c.wants_started ? "wants" : "does not want") +
                             (c.timing == AttemptTiming::kEvery ? ", every" : ", sampled") +
                             (c.retry ? ", retry" : ", no retry");
    EXPECT_EQ(listener.Count(EventKind::kAttemptStarted), c.wants_started ? attempts : 0) << what;
    EXPECT_EQ(listener.Count(EventKind::kAttemptEnded), attempts) << what;
  }
}

TEST(AttemptStartedInterestTest, MetricsListenersWantNoneAndIgnoreOneSentAnyway) {
  MetricsListener metrics;
  ScopedListener scoped("p", metrics);
  RecordingListener wants(AttemptTiming::kEvery, true);
  EXPECT_FALSE(metrics.wants_attempt_started());
  EXPECT_FALSE(metrics.For("p").wants_attempt_started());
  EXPECT_FALSE(scoped.wants_attempt_started());  // it answers for its target
  EXPECT_TRUE(ScopedListener("q", wants).wants_attempt_started());
  const std::string empty = metrics.Scrape();
  scoped.OnEvent(Event{.kind = EventKind::kAttemptStarted, .policy = PolicyId::kPipeline});
  metrics.For("p").OnEvent(Event{.kind = EventKind::kAttemptStarted, .policy = PolicyId::kPipeline});
  EXPECT_EQ(metrics.Scrape(), empty);  // no series and no overflow counted
}

}  // namespace
}  // namespace stormguard
