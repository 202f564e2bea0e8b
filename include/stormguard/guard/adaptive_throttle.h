// stormguard/guard/adaptive_throttle.h: client-side adaptive throttling, the
// rule of the Google SRE book's "Handling Overload" chapter.
//
// Over a trailing window (2 minutes by default) the client counts
// `requests`, the attempts its application made (those it refused itself
// included), and `accepts`, the attempts the backend accepted. A new attempt
// is refused locally, before it leaves, with probability
//
//   p = max(0, (requests - k * accepts) / (requests + 1))
//
// While the backend accepts everything p stays 0. Once it refuses most
// calls for overload, the client sends about k times what is accepted and
// answers the rest at once, so a backend busy refusing work is not also
// drowned in it. k = 2 is the book's default; a lower k throttles harder.
//
//   auto throttle = AdaptiveThrottle::Create({.k = 2}).value();
//   if (Status s = throttle->Admit(clock.Now()); !s.ok()) return s;  // counted as a request
//   Status answer = Call();
//   throttle->Record(clock.Now(), classifier.Classify(answer));       // an accept unless overloaded
//
// What is an accept: every answer the backend gave, except the outcome
// classes in `reject_on` (default: kOverloaded, i.e. HTTP 429, a 503 the
// adapter reads as overload, gRPC RESOURCE_EXHAUSTED). A permanent error, a
// transient one (a reset, a 502) or a timeout is not the backend refusing
// work for lack of capacity, and throttling on it would cut traffic to a
// backend with room to spare; the circuit breaker and the retry budget
// handle those. A cancelled attempt says nothing about the backend and
// leaves the window (Forget), like one refused before it left.
//
// The refusal is RESOURCE_EXHAUSTED from "adaptive_throttle" marked
// do-not-retry (hints().do_not_retry, class kDoNotRetry): the draw already
// accounts for retries, and a retry layer above would only redraw into the
// same overloaded backend (docs/chain-protocol.md). It is reported as
// kRejected (policy kAdaptiveThrottle).
//
// Below `min_requests` in the window nothing is refused, so a cold start or
// a quiet client does not throttle on three unlucky answers. Nor while the
// window holds no refusal from the backend: requests still in flight count
// as requests without accepts, and the formula alone would throttle a burst
// of slow calls to a healthy backend. That is also the fast path: a healthy
// throttle adds the request to its thread's stripe and reads one atomic
// that only refusals write, without summing the window.
//
// Randomness: one draw per attempt while p > 0, from a counter-based
// generator (splitmix64 of seed + n, as the chaos policy draws): a seed
// fixes the sequence; seed 0 seeds from the OS.
//
// Thread safety: every method may run concurrently and takes no lock but
// the rolling counter's, once per window slice (core/rolling_counter.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/events.h"
#include "stormguard/core/outcome.h"
#include "stormguard/core/result.h"
#include "stormguard/core/rolling_counter.h"
#include "stormguard/core/status.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct AdaptiveThrottleOptions {
  static constexpr double kMinK = 1.0;  // below 1 a backend accepting everything would be throttled
  static constexpr double kMaxK = 100.0;
  static constexpr int kSlices = 60;  // the window's buckets: 2 s each by default

  // The trailing window, in [1s, 1h]; kept as kSlices slices.
  Duration window = std::chrono::minutes(2);
  // Requests sent per accept, in [1, 100].
  double k = 2.0;
  // Requests the window must hold before anything is refused, in [0, 1e9].
  std::int64_t min_requests = 20;
  // Outcome classes that count as the backend refusing; never kSuccess
  // nor kCancelled.
  OutcomeSet reject_on{OutcomeClass::kOverloaded};
  std::uint64_t seed = 0;  // 0: from the OS
  // Receives kRejected events (policy "adaptive_throttle"); may be null.
  Listener* listener = nullptr;
  int stripes = 0;  // the counter's (core/striped_counter.h); 0 = automatic

  std::vector<std::string> Validate() const;
};

struct ThrottleCounts {
  std::int64_t requests = 0;
  std::int64_t accepts = 0;
};

class AdaptiveThrottle {
 public:
  static constexpr std::string_view kPolicy = "adaptive_throttle";

  // Validates; INVALID_ARGUMENT names every bad field. Shared: one throttle
  // stands for one backend, for every pipeline and thread calling it.
  static Result<std::shared_ptr<AdaptiveThrottle>> Create(const AdaptiveThrottleOptions& options);

  AdaptiveThrottle(const AdaptiveThrottle&) = delete;
  AdaptiveThrottle& operator=(const AdaptiveThrottle&) = delete;

  const AdaptiveThrottleOptions& options() const noexcept { return o_; }

  // Counts one request at `now` and lets it through, or refuses it with
  // probability RejectProbability(now) (see above).
  Status Admit(TimePoint now);
  // The backend answered an admitted attempt: an accept unless `outcome`
  // is in reject_on; a cancelled one is forgotten.
  void Record(TimePoint now, OutcomeClass outcome) noexcept;
  // An admitted attempt never reached the backend (refused further in,
  // cancelled): takes its request back.
  void Forget(TimePoint now) noexcept;

  // p at `now`: 0 below min_requests.
  double RejectProbability(TimePoint now) const noexcept;
  ThrottleCounts Counts(TimePoint now) const noexcept;
  std::int64_t rejected() const noexcept { return rejected_.load(std::memory_order_relaxed); }

 private:
  AdaptiveThrottle(const AdaptiveThrottleOptions& o, RollingCounter counter);

  double Probability(const ThrottleCounts& c) const noexcept;
  // No refusal from the backend in the window ending at `now`: p is 0.
  bool Calm(TimePoint now) const noexcept {
    return now.time_since_epoch().count() >= calm_from_ns_.load(std::memory_order_relaxed);
  }
  double Draw() noexcept;
  Status Reject(TimePoint now, const ThrottleCounts& c, double p);

  AdaptiveThrottleOptions o_;
  RollingCounter counter_;  // {requests, accepts}
  std::uint64_t seed_;
  std::atomic<std::uint64_t> draws_{0};
  std::atomic<std::int64_t> rejected_{0};
  // From this time on (ns) no refusal recorded so far is in the window;
  // moved forward by refusals, at most once per slice.
  std::atomic<std::int64_t> calm_from_ns_{0};
};

}  // namespace stormguard
