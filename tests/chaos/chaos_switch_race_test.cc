// Enabled and rate flipped from another thread while calls run: every call
// gets either its own answer or the injected fault, the counts agree, and a
// refused rate never shows. Run under TSan (scripts/sanitize.sh thread).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include "stormguard/chaos/chaos_policy.h"
#include "stormguard/metrics/counters.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(ChaosSwitchRaceTest, FlippingEnabledAndRateWhileCallsRunIsSafe) {
  ManualClock clock;
  CountingListener counts;
  auto chaos = ChaosPolicy::Create({.enabled = false, .rate = 0.0, .seed = 17, .listener = &counts}).value();
  auto pipeline = PipelineBuilder({.clock = &clock}).AddChaos(chaos).Build().value();

  constexpr int kCallers = 2;
  constexpr int kCalls = 5'000;
  std::atomic<int> running{kCallers};
  std::atomic<std::uint64_t> faults{0}, answers{0}, strange{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) {
        CallContext ctx;
        Status s = pipeline.Execute(ctx, [](CallContext&) { return Status::Ok(); });
        if (s.ok()) {
          answers.fetch_add(1, std::memory_order_relaxed);
        } else if (s.source() == "chaos" && s.code() == StatusCode::kUnavailable) {
          faults.fetch_add(1, std::memory_order_relaxed);
        } else {
          strange.fetch_add(1, std::memory_order_relaxed);
        }
      }
      running.fetch_sub(1, std::memory_order_release);
    });
  }
  // Flips every setting at least once, then until the callers are done
  // (bounded, in case they never are).
  int refused = 0;
  constexpr double kRates[] = {0.0, 0.5, 1.0, std::nan(""), -1.0, 2.0, 0.25};
  for (int i = 0; i < 7 || (i < 1'000'000 && running.load(std::memory_order_acquire) > 0); ++i) {
    chaos->SetEnabled(i % 3 != 0);
    if (!chaos->SetRate(kRates[i % 7]).ok()) ++refused;
    const double r = chaos->rate();
    ASSERT_TRUE(r >= 0.0 && r <= 1.0) << r;
  }
  for (std::thread& t : callers) t.join();

  EXPECT_EQ(strange.load(), 0u);
  EXPECT_EQ(answers.load() + faults.load(), static_cast<std::uint64_t>(kCallers * kCalls));
  EXPECT_EQ(chaos->injected(), faults.load());
  EXPECT_EQ(counts.Read().count(EventKind::kChaosInjected, PolicyId::kChaos, "error"), faults.load());
  EXPECT_GT(refused, 0);

  chaos->SetEnabled(false);
  CallContext ctx;
  EXPECT_TRUE(pipeline.Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());
}

}  // namespace
}  // namespace stormguard
