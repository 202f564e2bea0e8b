// stormguard/metrics/metrics_listener.h: Prometheus metrics for every policy
// instance, in the text exposition format (version 0.0.4).
//
// Each instance is a name (a pipeline, a destination) with its own series,
// labelled name="...". Events reach an instance two ways:
//   - For(name): a listener bound to the instance; the cheap path, hand it
//     to PipelineBuilder (or any policy) directly.
//   - MetricsListener itself: routes each event by its scope (set by a
//     ScopedListener in front) to the instance of that name, registering it
//     on first sight.
//
//   MetricsListener metrics;
//   auto p = PipelineBuilder({.listener = &metrics.For("payments")})...;
//   metrics.Watch("payments", Watched::kBulkheadInUse, [&] { return bulkhead.InUse(); });
//   std::string text = metrics.Scrape();   // serve it at /metrics
//
// Families (Resilience4j's names where it has one, prefixed stormguard_):
// attempts by outcome and their latency histogram, retry calls by kind,
// retries, retry stops by reason, budget refusals, calls the breaker
// refused, rejected calls by policy, timeouts, hedges sent, fallbacks,
// abandoned attempts; gauges and counters read at scrape time through Watch
// (bulkhead and adaptive limit in use and limit, budget tokens, reloads).
// Then the families policies registered (metrics/metric_family.h): the
// circuit breaker's state (a 0/1 gauge per state) and transitions, and any
// of a program's own policies. A counter appears once it is non-zero; the
// breaker's state gauge as soon as a breaker reporting here exists (it
// reports its first state when created: kStateReported).
// An attempt is counted where its end is reported: by the pipeline, or by
// its retry or hedge stage in its place (a hedge inside a retry reports its
// attempts and the retry reports the hedged call, so both are counted).
//
// Sampled attempt latency: the listeners answer AttemptTiming::kSampled, so
// a pipeline reads the precise clock after an attempt only when it times
// it. An attempt during which the coarse clock ticked (it may be slow) is
// timed exactly; of the fast ones (under a tick, 1-4 ms), each thread times
// 1 in kAttemptSampleEvery (16) and records it with weight 16. The histogram
// adds the weight to the bucket and weight * duration to _sum, so buckets,
// _sum and _count are unbiased estimates, exact in the tail, and the +Inf
// bucket equals _count; stormguard_attempts_total by outcome stays exact.
// (_count may differ from the attempts' total by up to 15 per thread.)
//
// Recording takes no lock, allocates nothing and does no string work: it
// switches on the event's kind and policy id. Counters live in per-thread
// shards (plain stores for the first threads, relaxed atomic adds for the
// rest); a registered family's take the slower path metric_family.h
// describes. An instance's listener takes untimed successes, most calls, in its
// SuccessTally without an event (core/success_tally.h). Registering an
// instance locks and allocates once (about 4 KiB).
// Memory is bounded: at most `max_instances` instances and as many
// watches; events and registrations beyond are counted in
// stormguard_metrics_overflow_total. Names are escaped for the format.
//
// Thread safety: every member may be called from any thread, concurrently.
// A scrape is consistent per series, not across series.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/events.h"

namespace stormguard {

// What a watch reads at scrape time; each kind is one metric family.
enum class Watched {
  kBulkheadInUse,    // gauge: calls holding a bulkhead slot
  kBulkheadLimit,    // gauge: the bulkhead's slots
  kAdaptiveInUse,    // gauge: calls the adaptive limiter admitted and not yet ended
  kAdaptiveLimit,    // gauge: the adaptive limit now
  kBudgetTokens,     // gauge: tokens left in a retry budget
  kReloadsAccepted,  // counter: configurations applied
  kReloadsRejected,  // counter: configurations refused
  // counter: timer callbacks that ran past their service's slow_callback
  // bound (TimerService::slow_callbacks()), holding up every other timer
  kTimerSlowCallbacks,
};
inline constexpr int kWatchedCount = static_cast<int>(Watched::kTimerSlowCallbacks) + 1;

namespace metrics_internal {
class Instance;
}

class MetricsListener final : public Listener {
 public:
  explicit MetricsListener(std::size_t max_instances = 1024);
  ~MetricsListener() override;
  MetricsListener(const MetricsListener&) = delete;
  MetricsListener& operator=(const MetricsListener&) = delete;

  // Records into the instance named by event.scope.
  void OnEvent(const Event& event) noexcept override;
  // kSampled: see "Sampled attempt latency" above.
  AttemptTiming attempt_timing() const noexcept override { return AttemptTiming::kSampled; }
  // No series counts attempts started: kAttemptEnded counts them all.
  bool wants_attempt_started() const noexcept override { return false; }

  // The instance `name`'s listener (registered on first use; the same one
  // after), valid as long as this MetricsListener. Past the cap, a listener
  // that only counts overflow.
  Listener& For(std::string_view name);

  // Reads `read` at every scrape as instance `name`'s `what`. Returns false
  // (and counts overflow) past the cap. `read` must be thread-safe, must
  // outlive the scrapes, and must not call Watch (it runs under its lock).
  bool Watch(std::string_view name, Watched what, std::function<double()> read);

  // Every series, in the text exposition format 0.0.4.
  std::string Scrape() const;

  static constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

 private:
  struct Slot;
  struct WatchEntry {
    std::string name;
    Watched what;
    std::function<double()> read;
  };
  class OverflowListener final : public Listener {
   public:
    explicit OverflowListener(std::atomic<std::uint64_t>& n) : n_(n) {}
    void OnEvent(const Event& e) noexcept override {
      if (e.kind != EventKind::kAttemptStarted) n_.fetch_add(1, std::memory_order_relaxed);
    }
    AttemptTiming attempt_timing() const noexcept override { return AttemptTiming::kSampled; }
    bool wants_attempt_started() const noexcept override { return false; }

   private:
    std::atomic<std::uint64_t>& n_;
  };

  metrics_internal::Instance* Find(std::string_view name) const noexcept;
  metrics_internal::Instance* Register(std::string_view name);

  const std::size_t max_instances_;
  const std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;                                      // open addressing by name; read without a lock
  std::unique_ptr<std::atomic<metrics_internal::Instance*>[]> order_;  // registration order
  std::atomic<std::size_t> count_{0};
  std::atomic<std::uint64_t> overflow_{0};
  OverflowListener overflow_listener_{overflow_};
  mutable std::mutex mu_;  // registration and watches
  std::vector<WatchEntry> watches_;
};

}  // namespace stormguard
