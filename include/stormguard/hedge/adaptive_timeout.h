// stormguard/hedge/adaptive_timeout.h: a per-attempt timeout that follows observed latency.
//
// A fixed per-attempt timeout is a guess made once; AdaptiveTimeout derives it
// from the destination's recent latency instead, as the hedge's live delay
// does (and Finagle's BackupRequestFilter, from a latency histogram):
//
//   timeout = clamp(quantile(q) of the window * factor, min, max)
//             (warmup while the tracker holds fewer than min_samples),
//   never beyond the call's remaining deadline.
//
//   auto tracker = LatencyTracker::Create({.window = 10s}).value();
//   auto adaptive = AdaptiveTimeout::Create({.latency = tracker, .max = 250ms}).value();
//   Duration t = adaptive->TimeoutFor(now, ctx.deadline.Remaining(now));
//   ... run the attempt with t ...
//   adaptive->RecordAttempt({.elapsed = e, .given = t, .timed_out = fired, .ok = ok}, now);
//
// Censoring: an attempt cut off by the timeout never reports its real
// latency, only that it took at least the timeout. RecordAttempt records
// it AS the timeout it was given. Without that, when latency degrades for
// everyone, no sample above the timeout ever arrives, the quantile stays
// where it was, every attempt times out, each is retried, and the retries
// feed a storm. With it, once the window is full of timed-out attempts the
// quantile reaches the current timeout and the next refresh raises it by
// `factor`, until it covers the new latency or reaches `max`.
// Other failures are not recorded: a fast refusal says nothing about how
// long an answer takes, and would pull the timeout down.
//
// Recovery: after a slowdown the window still holds its slow samples, and
// the quantile would keep the timeout high for a whole window after the
// latency came back. So when the p99 of the window's newest two fifths
// (estimated from at least 100 samples) is at most half the whole window's
// p99, the latency has fallen and the timeout follows the quantile of those
// newest samples alone. A climb is not given up: while latency rises, or
// stays slow, the newest samples are as slow as the window's or slower, and
// the whole window decides. A steady share of slow calls (1% at 300 ms)
// keeps the two p99s alike, so their timeout stays covered.
//
// The tracker may be shared with a hedge (HedgeOptions::latency). The hedge
// records its successful attempts itself, so a sharing AdaptiveTimeout sets
// record_successes = false and adds only the cut-off attempts, which the
// hedge never sees as slow; otherwise each success counts twice and the
// window covers half the time it says (the configuration does this for a
// timeout that shares the hedge's tracker).
//
// Thread safety: immutable options; the cached value and its refresh time
// are atomics (one caller per refresh period scans the histogram, the others
// keep the previous value); the tracker is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"
#include "stormguard/hedge/internal/refreshed_quantile.h"
#include "stormguard/hedge/latency_tracker.h"

namespace stormguard {

struct AdaptiveTimeoutOptions {
  std::shared_ptr<LatencyTracker> latency;            // required: the samples it follows
  double quantile = 0.999;                            // a fraction in (0, 1]: 0.999 is p99.9
  double factor = 2.0;                                // headroom over the quantile, >= 1
  Duration min = std::chrono::milliseconds(1);        // floor of the live value, > 0
  Duration max = std::chrono::seconds(10);            // ceiling of the live value, >= min
  Duration warmup = std::chrono::seconds(1);          // until the tracker holds min_samples
  Duration refresh = std::chrono::milliseconds(100);  // reuse a computed value this long
  bool record_successes = true;                       // false: another recorder (a hedge) adds them to `latency`

  std::vector<std::string> Validate() const;
};

// One finished attempt, as the stage that timed it saw it.
struct AttemptSample {
  Duration elapsed = Duration::zero();  // start to end
  Duration given = Duration::zero();    // the timeout it ran under
  bool timed_out = false;               // this timeout (not the caller's deadline) cut it off
  bool ok = false;                      // it succeeded
};

class AdaptiveTimeout {
 public:
  static Result<std::shared_ptr<AdaptiveTimeout>> Create(AdaptiveTimeoutOptions options);

  const AdaptiveTimeoutOptions& options() const noexcept { return o_; }
  LatencyTracker& latency() const noexcept { return *o_.latency; }

  // The timeout an attempt starting at `now` gets: Current(now), capped at
  // `remaining` (the call's remaining deadline; kInfiniteDuration: none).
  Duration TimeoutFor(TimePoint now, Duration remaining) const noexcept;
  // The live value at `now` (cached, recomputed once per `refresh`).
  Duration Current(TimePoint now) const noexcept;
  // The value from the tracker's samples at `now`, bypassing the cache.
  Duration Compute(TimePoint now) const noexcept;

  // Books a finished attempt: a success as its latency, an attempt this
  // timeout cut off as at least the timeout it was given; nothing else.
  void RecordAttempt(const AttemptSample& a, TimePoint now) const noexcept;

  AdaptiveTimeout(const AdaptiveTimeout&) = delete;
  AdaptiveTimeout& operator=(const AdaptiveTimeout&) = delete;

 private:
  explicit AdaptiveTimeout(AdaptiveTimeoutOptions o) noexcept;

  AdaptiveTimeoutOptions o_;
  hedge_internal::RefreshedQuantile current_;
};

}  // namespace stormguard
