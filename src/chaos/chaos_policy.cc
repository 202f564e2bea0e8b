#include "stormguard/chaos/chaos_policy.h"

#include "stormguard/core/internal/counter_draw.h"
#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr Duration kMaxLatency = std::chrono::hours(1);

}  // namespace

std::string_view ChaosKindName(ChaosKind kind) noexcept {
  switch (kind) {
    case ChaosKind::kError: return "error";
    case ChaosKind::kLatency: return "latency";
    case ChaosKind::kOutcome: return "outcome";
  }
  return "unknown";
}

std::vector<std::string> ChaosOptions::Validate() const {
  Validator v;
  v.CheckRange(rate, "rate", kFraction);
  if (kind == ChaosKind::kLatency) {
    v.Check(latency >= Duration::zero() && latency <= kMaxLatency, "latency", "must be in [0, 1h]");
    v.Check(latency_max == Duration::zero() || (latency_max >= latency && latency_max <= kMaxLatency), "latency_max",
            "must be 0 (a fixed delay) or in [latency, 1h]");
  } else {
    v.Check(!status.ok(), "status", "must not be OK: an injected fault answers with an error");
  }
  return std::move(v).errors();
}

Result<std::shared_ptr<ChaosPolicy>> ChaosPolicy::Create(ChaosOptions options) {
  Status s = ValidationStatus("chaos options", options.Validate());
  if (!s.ok()) return s;
  options.status = Status(options.status).WithSource(kPolicy);
  return std::shared_ptr<ChaosPolicy>(new ChaosPolicy(std::move(options)));
}

ChaosPolicy::ChaosPolicy(ChaosOptions o) noexcept
    : o_(std::move(o)), seed_(core_internal::SeedOrRandom(o_.seed)), enabled_(o_.enabled), rate_(o_.rate) {}

Status ChaosPolicy::SetRate(double rate) {
  Validator v;
  v.CheckRange(rate, "rate", kFraction);
  Status s = ValidationStatus("chaos", std::move(v).errors());
  if (s.ok()) rate_.store(rate, std::memory_order_relaxed);
  return s;
}

double ChaosPolicy::Uniform() noexcept {
  const std::uint64_t n = draws_.fetch_add(1, std::memory_order_relaxed);
  return core_internal::UniformDraw(seed_, n);
}

ChaosDecision ChaosPolicy::Decide(const Clock& clock, int attempt) noexcept {
  if (!enabled_.load(std::memory_order_relaxed)) return {};
  const double rate = rate_.load(std::memory_order_relaxed);
  if (rate <= 0.0 || Uniform() >= rate) return {};
  ChaosDecision d{.inject = true};
  if (o_.kind == ChaosKind::kLatency) {
    d.delay = o_.latency;
    if (o_.latency_max > o_.latency) {
      const auto span = static_cast<double>((o_.latency_max - o_.latency).count());
      d.delay += Duration(static_cast<Duration::rep>(Uniform() * span));
    }
  }
  injected_.fetch_add(1, std::memory_order_relaxed);
  Emit(o_.listener, Event{.kind = EventKind::kChaosInjected,
                          .policy = PolicyId::kChaos,
                          .reason = ChaosKindName(o_.kind),
                          .at = clock.CoarseNow(),
                          .attempt = attempt,
                          .outcome = OutcomeClass::kSuccess,
                          .duration = d.delay});
  return d;
}

}  // namespace stormguard
