#include "stormguard/sim/controls.h"

#include "stormguard/sim/budget_stack.h"

namespace stormguard::sim {

std::string_view ControlName(Control c) noexcept {
  switch (c) {
    case Control::kNone: return "none";
    case Control::kBudget: return "budget";
    case Control::kGate: return "gate";
    case Control::kNoRetry: return "no-retry";
    case Control::kRetryFlag: return "retry-flag";
    case Control::kBreaker: return "breaker";
    case Control::kAll: return "all";
  }
  return "unknown";
}

std::optional<Control> ParseControl(std::string_view name) noexcept {
  for (Control c : kAllControls) {
    if (ControlName(c) == name) return c;
  }
  return std::nullopt;
}

ControlSet ControlsOf(Control c) noexcept {
  switch (c) {
    case Control::kNone: return {};
    case Control::kBudget: return {.budget = true};
    case Control::kGate: return {.gate = true};
    case Control::kNoRetry: return {.no_retry = true};
    case Control::kRetryFlag: return {.retry_flag = true};
    case Control::kBreaker: return {.breaker = true};
    case Control::kAll:
      return {.budget = true, .gate = true, .no_retry = true, .retry_flag = true, .breaker = true, .deadlines = true};
  }
  return {};
}

Result<HopSpec> MakeHop(const ControlSet& c, const LayerPolicy& p) {
  Result<std::shared_ptr<RetryBudget>> budget = MakeBudgetStack(
      {.token_bucket = c.budget, .gate = c.gate, .max_tokens = p.max_tokens, .token_ratio = p.token_ratio});
  if (!budget.ok()) return std::move(budget).status();
  std::shared_ptr<CircuitBreaker> breaker;
  if (c.breaker) {
    Result<std::shared_ptr<CircuitBreaker>> cb = CircuitBreaker::Create(p.breaker);
    if (!cb.ok()) return std::move(cb).status();
    breaker = std::move(cb).value();
  }
  return HopSpec{.retry = {.max_attempts = p.retries + 1,
                           .backoff = p.backoff,
                           .per_attempt_timeout = p.timeout,
                           .min_attempt_time = p.min_attempt_time,
                           .idempotent = true,
                           .retry_when_serving_a_retry = !c.retry_flag,
                           .budget = std::move(budget).value()},
                 .mark_gave_up = c.no_retry,
                 .propagate_deadline = c.deadlines,
                 .forward_retry_flag = c.retry_flag,
                 .breaker = std::move(breaker)};
}

Result<std::vector<ChainResult>> RunForEachControl(const std::vector<Control>& controls,
                                                   const std::function<Result<ChainSpec>(Control)>& spec_for,
                                                   const std::function<void(double)>& progress) {
  std::vector<ChainResult> out;
  const double n = static_cast<double>(controls.size());
  for (std::size_t i = 0; i < controls.size(); ++i) {
    Result<ChainSpec> spec = spec_for(controls[i]);
    if (!spec.ok()) return std::move(spec).status();
    if (progress) spec->progress = [&progress, i, n](double f) { progress((static_cast<double>(i) + f) / n); };
    Result<ChainResult> r = RunChain(*spec);
    if (!r.ok()) return std::move(r).status();
    out.push_back(std::move(r).value());
  }
  return out;
}

}  // namespace stormguard::sim
