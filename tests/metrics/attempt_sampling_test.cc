// Sampled attempt timing stays unbiased when many threads make few calls:
// each thread starts its 1-in-16 countdown at a different phase, so the
// attempt histogram's _count (16 per timed attempt) estimates the attempts
// made, where a fixed phase left every thread's first 15 untimed.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/metrics/metrics_listener.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace attempt_sampling_test {

constexpr int kThreads = 64;
constexpr int kCallsEach = 3;
constexpr double kAttempts = kThreads * kCallsEach;

// Runs `each` on kThreads fresh threads, one after another (a thread's
// first sample draws its phase, so every one of them starts afresh).
template <class F>
void OnFreshThreads(F each) {
  for (int t = 0; t < kThreads; ++t) std::thread(each).join();
}

TEST(AttemptSamplingPhaseTest, ManyThreadsOfFewFastAttemptsWeighAsManyAsTheyMade) {
  core_internal::SeedAttemptSampling(7);
  std::uint64_t weight = 0;
  const TimePoint start(std::chrono::seconds(1));
  OnFreshThreads([&] {
    for (int i = 0; i < kCallsEach; ++i) weight += core_internal::SampledWeight(start, start);  // fast: no tick
  });
  EXPECT_NEAR(static_cast<double>(weight), kAttempts, 0.1 * kAttempts);
}

std::uint64_t CountIn(const std::string& scrape, const std::string& series) {
  const std::size_t at = scrape.find(series + " ");
  if (at == std::string::npos) return 0;
  return std::stoull(scrape.substr(at + series.size() + 1));
}

TEST(AttemptSamplingPhaseTest, TheHistogramCountEstimatesTheAttemptsOfManyShortLivedThreads) {
  core_internal::SeedAttemptSampling(11);
  ManualClock clock;  // never moves: every attempt is fast
  MetricsListener metrics;
  PipelineRef p = PipelineBuilder({.clock = &clock, .listener = &metrics.For("s")}).Build().value();
  OnFreshThreads([&] {
    CallContext ctx;
    for (int i = 0; i < kCallsEach; ++i) (void)p.Execute(ctx, [](CallContext&) { return Status::Ok(); });
  });
  const std::string scrape = metrics.Scrape();
  EXPECT_EQ(CountIn(scrape, "stormguard_attempts_total{name=\"s\",outcome=\"success\"}"), kAttempts) << scrape;
  const auto count = CountIn(scrape, "stormguard_attempt_duration_seconds_count{name=\"s\"}");
  EXPECT_NEAR(static_cast<double>(count), kAttempts, 0.1 * kAttempts) << scrape;
}

}  // namespace attempt_sampling_test
}  // namespace stormguard
