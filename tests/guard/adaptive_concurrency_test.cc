#include "stormguard/guard/adaptive_concurrency.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "testkit/recording_listener.h"
#include "testkit/time_points.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

using testkit::kT0;

std::shared_ptr<AdaptiveLimiter> MakeAimd(AimdLimitOptions o, Listener* listener = nullptr) {
  auto r = AdaptiveLimiter::Create({.algorithm = LimitKind::kAimd, .aimd = o, .listener = listener});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// Records what the limiter passes to its algorithm; the limit stays fixed.
class FixedProbe final : public LimitAlgorithm {
 public:
  struct Sample {
    Duration rtt;
    int inflight;
    bool dropped;
  };
  explicit FixedProbe(std::vector<Sample>* samples) : samples_(samples) {}
  std::string_view name() const noexcept override { return "probe"; }
  int limit() const noexcept override { return 2; }
  int OnSample(TimePoint, Duration rtt, int inflight, bool dropped) override {
    samples_->push_back({rtt, inflight, dropped});
    return 2;
  }

 private:
  std::vector<Sample>* samples_;
};

TEST(AdaptiveLimiterTest, ValidateChecksOnlyTheChosenAlgorithm) {
  auto bad = AdaptiveLimiter::Create({.algorithm = LimitKind::kAimd, .aimd = {.min_limit = 0}});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("aimd.min_limit: must be at least 1"));
  auto ok = AdaptiveLimiter::Create({.algorithm = LimitKind::kGradient, .aimd = {.min_limit = 0}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->algorithm_name(), "gradient");
  EXPECT_EQ((*ok)->limit(), 20);
  EXPECT_EQ(AdaptiveLimiter::Create(std::unique_ptr<LimitAlgorithm>()).status().code(), StatusCode::kInvalidArgument);
}

TEST(AdaptiveLimiterTest, AdmitsUpToTheLimitThenRejectsWithReason) {
  testkit::RecordingListener listener;
  auto limiter = MakeAimd({.initial_limit = 3, .min_limit = 1, .max_limit = 10}, &listener);
  std::vector<AdaptiveLimiter::Token> tokens;
  for (int i = 0; i < 3; ++i) {
    auto t = limiter->TryAcquire(kT0);
    ASSERT_TRUE(t.ok());
    tokens.push_back(std::move(*t));
  }
  auto refused = limiter->TryAcquire(kT0 + 1ms);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(refused.status().source(), "adaptive_concurrency");
  EXPECT_EQ(refused.status().message(), "adaptive concurrency limit reached: 3/3 in flight");
  EXPECT_EQ(limiter->rejected(), 1);
  auto events = listener.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kRejected);
  EXPECT_EQ(events[0].policy, PolicyId::kAdaptiveConcurrency);
}

TEST(AdaptiveLimiterTest, AimdGrowsOnBusySuccessesAndShrinksOnDrop) {
  testkit::RecordingListener listener;
  auto limiter = MakeAimd({.initial_limit = 3, .min_limit = 1, .max_limit = 10}, &listener);
  auto a = limiter->TryAcquire(kT0);  // admitted with 1 in flight
  auto b = limiter->TryAcquire(kT0);  // 2
  auto c = limiter->TryAcquire(kT0);  // 3
  a->OnSuccess(kT0 + 5ms);            // 1 * 2 < 3: app-limited, no change
  EXPECT_EQ(limiter->limit(), 3);
  b->OnSuccess(kT0 + 5ms);  // 2 * 2 >= 3
  EXPECT_EQ(limiter->limit(), 4);
  c->OnSuccess(kT0 + 5ms);
  EXPECT_EQ(limiter->limit(), 5);
  auto d = limiter->TryAcquire(kT0 + 10ms);
  d->OnDropped(kT0 + 1s);  // floor(5 * 0.9)
  EXPECT_EQ(limiter->limit(), 4);
  EXPECT_EQ(limiter->inflight(), 0);
  auto events = listener.events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, EventKind::kStateChanged);
  EXPECT_EQ(events[0].reason, "limit_increased");
  EXPECT_EQ(events[0].duration, 5ms);
  EXPECT_EQ(events[2].reason, "limit_decreased");
  EXPECT_EQ(events[2].at, kT0 + 1s);
}

TEST(AdaptiveLimiterTest, TokenReportsRttFromAcquireAndInflightAtAdmission) {
  std::vector<FixedProbe::Sample> samples;
  auto limiter = std::move(AdaptiveLimiter::Create(std::make_unique<FixedProbe>(&samples))).value();
  auto first = limiter->TryAcquire(kT0);
  auto second = limiter->TryAcquire(kT0 + 10ms);
  second->OnDropped(kT0 + 52ms);
  first->OnSuccess(kT0 + 100ms);
  first->OnSuccess(kT0 + 200ms);  // a second verdict is ignored
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].rtt, 42ms);
  EXPECT_EQ(samples[0].inflight, 2);
  EXPECT_TRUE(samples[0].dropped);
  EXPECT_EQ(samples[1].rtt, 100ms);
  EXPECT_EQ(samples[1].inflight, 1);
  EXPECT_FALSE(samples[1].dropped);
}

TEST(AdaptiveLimiterTest, IgnoredOrDroppedTokensFreeTheirSlotWithoutASample) {
  std::vector<FixedProbe::Sample> samples;
  auto limiter = std::move(AdaptiveLimiter::Create(std::make_unique<FixedProbe>(&samples))).value();
  {
    auto t = limiter->TryAcquire(kT0);
    auto moved = std::move(*t);
    EXPECT_EQ(limiter->inflight(), 1);
  }  // destroyed without a verdict
  auto u = limiter->TryAcquire(kT0);
  u->OnIgnore();
  EXPECT_FALSE(u->valid());
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_TRUE(samples.empty());
}

TEST(AdaptiveLimiterTest, GradientLimiterShrinksUnderSlowResponsesAndRecovers) {
  auto r = AdaptiveLimiter::Create({.gradient = {.initial_limit = 40, .min_limit = 4, .max_limit = 40}});
  auto limiter = std::move(r).value();
  // One round: admit as many as the limit allows, all answer after `rtt`.
  auto round = [&](TimePoint start, Duration rtt) {
    std::vector<AdaptiveLimiter::Token> tokens;
    for (auto t = limiter->TryAcquire(start); t.ok(); t = limiter->TryAcquire(start)) {
      tokens.push_back(std::move(*t));
    }
    for (auto& t : tokens) t.OnSuccess(start + rtt);
    return static_cast<int>(tokens.size());
  };
  TimePoint now = kT0;
  for (int i = 0; i < 5; ++i, now += 1s) EXPECT_EQ(round(now, 10ms), 40);
  // 5x the baseline. (Kept up for hundreds of samples, 50ms would become
  // the new baseline: the long-term average follows lasting changes.)
  for (int i = 0; i < 3; ++i, now += 1s) round(now, 50ms);
  const int shrunk = limiter->limit();
  EXPECT_LT(shrunk, 10);
  EXPECT_GE(shrunk, 4);
  EXPECT_EQ(round(now, 10ms), shrunk);
  for (int i = 0; i < 20; ++i, now += 1s) round(now, 10ms);
  EXPECT_EQ(limiter->limit(), 40);
}

// An algorithm that always answers 0.
class ZeroLimit final : public LimitAlgorithm {
 public:
  std::string_view name() const noexcept override { return "zero"; }
  int limit() const noexcept override { return 0; }
  int OnSample(TimePoint, Duration, int, bool) override { return 0; }
};

TEST(AdaptiveLimiterTest, CustomAlgorithmCannotLockTheLimiterOut) {
  auto limiter = std::move(AdaptiveLimiter::Create(std::make_unique<ZeroLimit>())).value();
  EXPECT_EQ(limiter->limit(), 1);
  auto t = limiter->TryAcquire(kT0);
  ASSERT_TRUE(t.ok());
  t->OnDropped(kT0 + 1ms);
  EXPECT_EQ(limiter->limit(), 1);
  EXPECT_TRUE(limiter->TryAcquire(kT0).ok());
}

TEST(AdaptiveLimiterTest, ContendedAcquireNeverExceedsTheLimit) {
  auto limiter = MakeAimd({.initial_limit = 4, .min_limit = 2, .max_limit = 6});
  std::atomic<int> active{0}, peak{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t) {
    pool.emplace_back([&, t] {
      for (int i = 0; i < 3000; ++i) {
        auto token = limiter->TryAcquire(kT0);
        if (!token.ok()) continue;
        const int now_active = active.fetch_add(1) + 1;
        int prev = peak.load();
        while (now_active > prev && !peak.compare_exchange_weak(prev, now_active)) {
        }
        active.fetch_sub(1);
        if ((i + t) % 7 == 0) {
          token->OnDropped(kT0 + 1ms);
        } else {
          token->OnSuccess(kT0 + 1ms);
        }
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_LE(peak.load(), 6);
  EXPECT_EQ(limiter->inflight(), 0);
  EXPECT_GE(limiter->limit(), 2);
  EXPECT_LE(limiter->limit(), 6);
}

}  // namespace
}  // namespace stormguard
