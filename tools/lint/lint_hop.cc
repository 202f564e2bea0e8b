#include "lint/lint_hop.h"

#include <algorithm>

#include "stormguard/backoff/backoff.h"
#include "stormguard/config/preset.h"
#include "stormguard/core/deadline.h"

namespace stormguard::lint {
namespace {

Duration Add(Duration a, Duration b) noexcept {
  if (a == kInfiniteDuration || b == kInfiniteDuration || a > kInfiniteDuration - b) return kInfiniteDuration;
  return a + b;
}

// d * n, kInfiniteDuration past the range.
Duration Times(Duration d, int n) noexcept {
  if (d == kInfiniteDuration || (n > 0 && d.count() > kInfiniteDuration.count() / n)) return kInfiniteDuration;
  return d * n;
}

void ApplyStage(const config::StageConfig& s, Hop& hop) {
  if (const auto* t = s.options<config::TimeoutConfig>()) {
    if (s.Is("timeout")) {
      hop.overall_timeout = t->timeout.timeout;
    } else {
      // An adaptive one can give an attempt up to the larger of max and warmup.
      const auto& a = t->adaptive;
      hop.attempt_timeout = a ? std::max(a->options.max, a->options.warmup) : t->timeout.timeout;
    }
  } else if (const auto* r = s.options<config::RetryConfig>()) {
    hop.retry = *r;
  } else if (const auto* h = s.options<config::HedgeConfig>()) {
    hop.hedge = *h;
  } else if (s.Is("require_idempotency_key")) {
    hop.requires_key = true;
  }
}

Result<Hop> HopOf(const ChainService& caller, const ChainService& callee) {
  Hop hop{.caller = &caller, .callee = &callee, .destination = &caller.config->destinations.find(caller.calls)->second};
  const config::DestinationConfig& d = *hop.destination;
  hop.breaker = d.circuit_breaker;
  std::vector<config::StageConfig> stages = d.pipeline.stages;
  if (d.pipeline.preset) {
    Result<config::PresetStages> expanded = config::ExpandPreset(*d.pipeline.preset);
    if (!expanded.ok()) return std::move(expanded).status();
    stages = expanded->stages;
    if (!hop.breaker) hop.breaker = expanded->components.circuit_breaker;
  }
  for (const config::StageConfig& s : stages) ApplyStage(s, hop);
  if (const config::MethodConfig* m = config::FindMethod(d, caller.method)) {
    if (m->timeout) hop.overall_timeout = *m->timeout;
    if (m->retry) hop.retry = m->retry;
    if (m->hedge) hop.hedge = m->hedge;
  }
  if (hop.retry && hop.attempt_timeout == kInfiniteDuration)
    hop.attempt_timeout = hop.retry->options.per_attempt_timeout;
  return hop;
}

}  // namespace

Duration Hop::AttemptsWorstCase() const { return LoopWorstCase(attempt_timeout); }

// A wait never exceeds the cap and never shrinks from one retry to the
// next, so once a retry's longest wait is the cap every later one is too:
// the loop ends there and the rest is one multiplication.
Duration Hop::LoopWorstCase(Duration attempt) const {
  Duration total = attempt;
  if (!retries() || total == kInfiniteDuration) return total;
  Result<Backoff> backoff = Backoff::Create(retry->options.backoff);
  if (!backoff.ok()) return kInfiniteDuration;  // a parsed config's backoff is valid
  const Duration cap = retry->options.backoff.cap;
  for (int n = 1; n < attempts(); ++n) {
    const Duration wait = backoff->Range(n).second;
    if (wait >= cap) return Add(total, Times(Add(attempt, cap), attempts() - n));
    total = Add(Add(total, attempt), wait);
  }
  return total;
}

Duration Hop::WorstCase() const { return std::min(overall_timeout, AttemptsWorstCase()); }

Duration Hop::AttemptWindow() const { return std::min(overall_timeout, attempt_timeout); }

bool IsNonIdempotentMethod(std::string_view method) noexcept {
  return method.starts_with("POST ") || method.starts_with("PATCH ");
}

Result<std::vector<Hop>> HopsOf(const Chain& chain) {
  std::vector<Hop> hops;
  for (std::size_t i = 0; i + 1 < chain.services.size(); ++i) {
    Result<Hop> hop = HopOf(chain.services[i], chain.services[i + 1]);
    if (!hop.ok()) return Status::InvalidArgument(chain.services[i].name + ": " + hop.status().message());
    hops.push_back(std::move(hop).value());
  }
  return hops;
}

}  // namespace stormguard::lint
