#include "stormguard/sim/adaptive_timeout_scenario.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"
#include "stormguard/retry/retry_policy.h"
#include "stormguard/sim/distribution.h"
#include "stormguard/sim/engine.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {

constexpr int kPhases = 3;
constexpr const char* kPhaseNames[kPhases] = {"healthy", "degraded", "recovered"};
constexpr double kSpread = 0.2;  // latency standard deviation, as a share of the median

enum EventKind : std::uint32_t { kArrive, kAttemptEnd, kRetry, kSample };

struct Call {
  TimePoint start{};
  Deadline deadline{};
  int phase = 0;
  int attempt = 0;
  Duration given = Duration::zero();
  bool cut = false;   // the attempt under way ends at its timeout
  bool ours = false;  // that timeout is the per-attempt one, not the deadline
  TimePoint attempt_start{};
  Duration previous_wait = Duration::zero();
};

// One mode's run: requests arrive, attempt, time out or answer, retry.
class Run final : public Actor {
 public:
  Run(const AdaptiveTimeoutScenarioOptions& o, const RetryPolicy& retry, std::shared_ptr<AdaptiveTimeout> adaptive)
      : o_(o), retry_(retry), adaptive_(std::move(adaptive)), engine_(o.seed) {
    gap_ = Duration(static_cast<Duration::rep>(1e9 / o.rate));
    end_ = engine_.start() + kPhases * o.phase;
    stats_.resize(kPhases);
    latencies_.resize(kPhases);
    for (int p = 0; p < kPhases; ++p) stats_[p].name = kPhaseNames[p];
  }

  ModeResult Go(std::string name) {
    engine_.At(engine_.start(), this, kArrive);
    engine_.At(engine_.start(), this, kSample);
    engine_.Run();
    ModeResult out{.name = std::move(name), .phases = std::move(stats_), .timeout_samples = std::move(samples_)};
    for (int p = 0; p < kPhases; ++p) {
      std::vector<Duration>& v = latencies_[p];
      std::sort(v.begin(), v.end());
      out.phases[p].p50 = Quantile(v, 0.5);
      out.phases[p].p99 = Quantile(v, 0.99);
    }
    return out;
  }

  void OnEvent(const SimEvent& e) override {
    switch (e.kind) {
      case kArrive: return Arrive();
      case kAttemptEnd: return AttemptEnd(e.a);
      case kRetry: return StartAttempt(e.a);
      default: return Sample();
    }
  }

 private:
  static Duration Quantile(const std::vector<Duration>& sorted, double q) {
    if (sorted.empty()) return Duration::zero();
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::max<std::size_t>(rank, 1) - 1];
  }

  int PhaseAt(TimePoint t) const { return std::min(kPhases - 1, static_cast<int>((t - engine_.start()) / o_.phase)); }

  void Arrive() {
    const TimePoint now = engine_.now();
    calls_.push_back({.start = now, .deadline = Deadline::After(now, o_.deadline), .phase = PhaseAt(now)});
    ++stats_[calls_.back().phase].calls;
    StartAttempt(static_cast<std::uint32_t>(calls_.size() - 1));
    if (now + gap_ < end_) engine_.After(gap_, this, kArrive);
  }

  void StartAttempt(std::uint32_t i) {
    Call& c = calls_[i];
    const TimePoint now = engine_.now();
    const Duration remaining = c.deadline.Remaining(now);
    if (remaining <= Duration::zero()) return Finish(c, false);
    const Duration timeout = adaptive_ ? adaptive_->TimeoutFor(now, remaining) : std::min(o_.fixed_timeout, remaining);
    const Duration median = PhaseAt(now) == 1 ? o_.degraded : o_.healthy;
    const Duration latency = Latency::Normal(median, SaturatingScale(median, kSpread)).Sample(engine_.rng());
    c.given = timeout;
    c.ours = timeout < remaining;
    c.cut = latency > timeout;
    c.attempt_start = now;
    ++c.attempt;
    PhaseStats& s = stats_[c.phase];
    ++s.attempts;
    s.min_timeout = s.attempts == 1 ? timeout : std::min(s.min_timeout, timeout);
    s.max_timeout = std::max(s.max_timeout, timeout);
    engine_.After(c.cut ? timeout : latency, this, kAttemptEnd, i);
  }

  void AttemptEnd(std::uint32_t i) {
    Call& c = calls_[i];
    const TimePoint now = engine_.now();
    if (adaptive_) {
      adaptive_->RecordAttempt(
          {.elapsed = now - c.attempt_start, .given = c.given, .timed_out = c.cut && c.ours, .ok = !c.cut}, now);
    }
    if (!c.cut) return Finish(c, true);
    if (c.ours) ++stats_[c.phase].timeouts;
    const Status status = Status::DeadlineExceeded("attempt_timeout");
    const CallContext ctx{.deadline = c.deadline, .attempt = c.attempt};
    const RetryDecision d = retry_.Decide(retry_.Classify(status), status, ctx, now, c.previous_wait, engine_.rng());
    if (!d.retry) return Finish(c, false);
    c.previous_wait = d.wait;
    engine_.After(d.wait, this, kRetry, i);
  }

  void Finish(const Call& c, bool ok) {
    if (ok) ++stats_[c.phase].succeeded;
    latencies_[c.phase].push_back(engine_.now() - c.start);
  }

  void Sample() {
    const TimePoint now = engine_.now();
    samples_.push_back(adaptive_ ? adaptive_->Current(now) : o_.fixed_timeout);
    if (now + o_.sample_every < end_) engine_.After(o_.sample_every, this, kSample);
  }

  const AdaptiveTimeoutScenarioOptions& o_;
  const RetryPolicy& retry_;
  std::shared_ptr<AdaptiveTimeout> adaptive_;  // null: the fixed timeout
  Engine engine_;
  Duration gap_{};
  TimePoint end_{};
  std::vector<Call> calls_;
  std::vector<PhaseStats> stats_;
  std::vector<std::vector<Duration>> latencies_;
  std::vector<Duration> samples_;
};

}  // namespace

double PhaseStats::success_rate() const noexcept {
  return calls == 0 ? 0.0 : static_cast<double>(succeeded) / static_cast<double>(calls);
}

double PhaseStats::attempts_per_call() const noexcept {
  return calls == 0 ? 0.0 : static_cast<double>(attempts) / static_cast<double>(calls);
}

std::vector<std::string> AdaptiveTimeoutScenarioOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(rate) && rate > 0 && rate <= 1e6, "rate", "must be in (0, 1e6] requests/s");
  v.Check(phase > Duration::zero(), "phase", "must be positive");
  v.Check(healthy > Duration::zero(), "healthy", "must be positive");
  v.Check(degraded > Duration::zero(), "degraded", "must be positive");
  v.Check(fixed_timeout > Duration::zero(), "fixed_timeout", "must be positive");
  v.Check(max_attempts >= 1 && max_attempts <= 10, "max_attempts", "must be in [1, 10]");
  v.Check(deadline > Duration::zero(), "deadline", "must be positive");
  v.Check(sample_every > Duration::zero(), "sample_every", "must be positive");
  v.Nest("adaptive", adaptive.Validate());
  v.Nest("latency", LatencyTrackerOptions{.window = window}.Validate());
  if (!v.errors().empty()) return std::move(v).errors();  // the estimates need sane values
  const double requests = rate * Seconds(phase) * kPhases + 1;
  CheckLimit(v, "phase", 2 * requests * max_attempts, kMaxAttempts,
             "3 phases of " + Estimate(Seconds(phase)) + "s at " + Estimate(rate) + " requests/s, up to " +
                 std::to_string(max_attempts) + " attempts each, in 2 modes,",
             "attempts");
  CheckLimit(v, "rate", rate * Seconds(deadline) + 1, kMaxLiveCalls,
             Estimate(rate) + " requests/s, each in flight for up to " + Estimate(Seconds(deadline)) + "s,",
             "calls in flight");
  CheckLimit(v, "sample_every", 2 * Seconds(phase) * kPhases / Seconds(sample_every), kMaxCounters,
             "sampling 3 phases of " + Estimate(Seconds(phase)) + "s", "samples");
  return std::move(v).errors();
}

Result<AdaptiveTimeoutScenarioResult> RunAdaptiveTimeoutScenario(const AdaptiveTimeoutScenarioOptions& o) {
  Status s = ValidationStatus("adaptive timeout scenario options", o.Validate());
  if (!s.ok()) return s;
  Result<RetryPolicy> retry = RetryPolicy::Create({.max_attempts = o.max_attempts,
                                                   .backoff = {.kind = BackoffKind::kExponential,
                                                               .base = std::chrono::milliseconds(10),
                                                               .cap = std::chrono::seconds(1),
                                                               .jitter = Jitter::kFull},
                                                   .idempotent = true});
  if (!retry.ok()) return std::move(retry).status();
  AdaptiveTimeoutScenarioResult out{.options = o};
  out.modes.push_back(Run(o, *retry, nullptr).Go("fixed"));
  AdaptiveTimeoutOptions a = o.adaptive;
  Result<std::shared_ptr<LatencyTracker>> tracker = LatencyTracker::Create({.window = o.window});
  if (!tracker.ok()) return std::move(tracker).status();
  a.latency = std::move(tracker).value();
  Result<std::shared_ptr<AdaptiveTimeout>> adaptive = AdaptiveTimeout::Create(std::move(a));
  if (!adaptive.ok()) return std::move(adaptive).status();
  out.modes.push_back(Run(o, *retry, std::move(adaptive).value()).Go("adaptive"));
  return out;
}

std::optional<Duration> BackWithinTwiceHealthy(const ModeResult& m, const AdaptiveTimeoutScenarioOptions& o) {
  const auto at = [&](Duration t) { return static_cast<std::size_t>(t / o.sample_every); };
  const std::size_t healthy_end = at(o.phase), recovered = at(2 * o.phase);
  if (healthy_end == 0 || recovered >= m.timeout_samples.size()) return std::nullopt;
  const Duration bound = 2 * m.timeout_samples[healthy_end - 1];
  // A plain index, not an optional: GCC 12 at -O1 under TSan warns that an
  // optional<size_t> may be read uninitialised here.
  constexpr std::size_t kNotBack = ~std::size_t{0};
  std::size_t back = kNotBack;
  for (std::size_t i = recovered; i < m.timeout_samples.size(); ++i) {
    if (m.timeout_samples[i] > bound) {
      back = kNotBack;
    } else if (back == kNotBack) {
      back = i;
    }
  }
  if (back == kNotBack) return std::nullopt;
  return o.sample_every * static_cast<Duration::rep>(back - recovered);
}

}  // namespace stormguard::sim
