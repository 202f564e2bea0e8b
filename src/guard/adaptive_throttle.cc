#include "stormguard/guard/adaptive_throttle.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "stormguard/core/duration_format.h"
#include "stormguard/core/internal/counter_draw.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr Duration kMinWindow = std::chrono::seconds(1);
constexpr Duration kMaxWindow = std::chrono::hours(1);
constexpr std::int64_t kMaxMinRequests = 1'000'000'000;

RollingCounterOptions CounterOptions(const AdaptiveThrottleOptions& o) {
  return {.window = o.window, .buckets = AdaptiveThrottleOptions::kSlices, .stripes = o.stripes};
}

std::string Fixed2(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", x);
  return buf;
}

}  // namespace

std::vector<std::string> AdaptiveThrottleOptions::Validate() const {
  Validator v;
  v.Check(window >= kMinWindow && window <= kMaxWindow, "window", "must be in [1s, 1h]");
  v.CheckRange(k, "k", {kMinK, kMaxK});
  v.Check(min_requests >= 0 && min_requests <= kMaxMinRequests, "min_requests", "must be in [0, 1e9]");
  v.Check(!reject_on.contains(OutcomeClass::kSuccess), "reject_on",
          "must not contain success: a success is the backend accepting");
  v.Check(!reject_on.contains(OutcomeClass::kCancelled), "reject_on",
          "must not contain cancelled: a cancelled attempt says nothing about the backend and leaves the window");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be 0 (automatic) or in [1, 64]");
  return std::move(v).errors();
}

Result<std::shared_ptr<AdaptiveThrottle>> AdaptiveThrottle::Create(const AdaptiveThrottleOptions& options) {
  Status s = ValidationStatus("adaptive throttle options", options.Validate());
  if (!s.ok()) return s;
  Result<RollingCounter> counter = RollingCounter::Create(CounterOptions(options));
  if (!counter.ok()) return std::move(counter).status();
  return std::shared_ptr<AdaptiveThrottle>(new AdaptiveThrottle(options, std::move(counter).value()));
}

AdaptiveThrottle::AdaptiveThrottle(const AdaptiveThrottleOptions& o, RollingCounter counter)
    : o_(o), counter_(std::move(counter)), seed_(core_internal::SeedOrRandom(o.seed)) {}

ThrottleCounts AdaptiveThrottle::Counts(TimePoint now) const noexcept {
  const RollingCounts c = counter_.Sum(now);
  return {.requests = c[0], .accepts = c[1]};
}

double AdaptiveThrottle::Probability(const ThrottleCounts& c) const noexcept {
  if (c.requests < o_.min_requests) return 0.0;
  const double excess = static_cast<double>(c.requests) - o_.k * static_cast<double>(c.accepts);
  return std::max(0.0, excess / static_cast<double>(c.requests + 1));
}

double AdaptiveThrottle::RejectProbability(TimePoint now) const noexcept {
  return Calm(now) ? 0.0 : Probability(Counts(now));
}

double AdaptiveThrottle::Draw() noexcept {
  return core_internal::UniformDraw(seed_, draws_.fetch_add(1, std::memory_order_relaxed));
}

// The formula counts this request too: a refused request is a request.
Status AdaptiveThrottle::Admit(TimePoint now) {
  if (Calm(now)) {
    counter_.Add(now, {1, 0});
    return Status::Ok();
  }
  ThrottleCounts c = Counts(now);
  counter_.Add(now, {1, 0});
  ++c.requests;
  const double p = Probability(c);
  if (p <= 0.0 || Draw() >= p) return Status::Ok();
  return Reject(now, c, p);
}

void AdaptiveThrottle::Record(TimePoint now, OutcomeClass outcome) noexcept {
  if (outcome == OutcomeClass::kCancelled) return Forget(now);
  if (!o_.reject_on.contains(outcome)) {
    counter_.Add(now, {0, 1});
    return;
  }
  // The refusal stays in the window for `window` from its slice on; moving
  // the mark once per slice keeps refusals off a shared line in between.
  const std::int64_t until = (now + o_.window + counter_.bucket_width()).time_since_epoch().count();
  std::int64_t calm_from = calm_from_ns_.load(std::memory_order_relaxed);
  while (until - calm_from >= counter_.bucket_width().count() &&
         !calm_from_ns_.compare_exchange_weak(calm_from, until, std::memory_order_relaxed)) {
  }
}

void AdaptiveThrottle::Forget(TimePoint now) noexcept { counter_.Add(now, {-1, 0}); }

Status AdaptiveThrottle::Reject(TimePoint now, const ThrottleCounts& c, double p) {
  rejected_.fetch_add(1, std::memory_order_relaxed);
  Emit(o_.listener, {.kind = EventKind::kRejected,
                     .policy = PolicyId::kAdaptiveThrottle,
                     .reason = "backend refusing for overload",
                     .at = now});
  RetryHints hints;
  hints.do_not_retry = true;  // a retry would redraw into the same overloaded backend
  return Status::ResourceExhausted("adaptive throttle: the backend accepted " + std::to_string(c.accepts) + " of " +
                                   std::to_string(c.requests) + " requests in the last " + FormatDuration(o_.window) +
                                   "; refused locally with p " + Fixed2(p) + " (k " + Fixed2(o_.k) + ")")
      .WithSource(kPolicy)
      .WithHints(std::move(hints));
}

}  // namespace stormguard
