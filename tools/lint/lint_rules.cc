#include "lint/lint_rules.h"

#include <algorithm>
#include <cmath>

#include "stormguard/config/duration_text.h"
#include "stormguard/core/classifier.h"

namespace stormguard::lint {
namespace {

std::string Text(Duration d) { return config::FormatDurationText(d); }

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// Collects the findings of every rule for one hop.
class Checker {
 public:
  Checker(const Chain& chain, const std::vector<Hop>& hops, LintResult& out) : chain_(chain), hops_(hops), out_(out) {}

  void Run() {
    for (std::size_t i = 0; i < hops_.size(); ++i) {
      const Hop& h = hops_[i];
      RetryRules(h);
      TimeoutRules(i);
      HedgeRules(h);
      BreakerRule(h);
      ChaosRule(h);
    }
  }

 private:
  void Report(std::string_view rule, const Hop& h, std::string field, const std::string& detail) {
    const std::string& dest = h.caller->calls;
    Finding f{.rule = rule,
              .service = h.caller->name,
              .destination = dest,
              .field = "destinations." + dest + "." + field,
              .config = h.caller->config_path,
              .message = h.caller->name + " -> " + dest + ": " + field + ": " + detail,
              .suppressed = {}};
    if (auto it = h.caller->disabled.find(rule); it != h.caller->disabled.end()) {
      f.suppressed = it->second;
      out_.suppressed.push_back(std::move(f));
    } else {
      out_.findings.push_back(std::move(f));
    }
  }

  int RetryingLayers() const {
    return static_cast<int>(std::count_if(hops_.begin(), hops_.end(), [](const Hop& h) { return h.retries(); }));
  }

  void RetryRules(const Hop& h) {
    if (!h.retries()) return;
    const RetryOptions& r = h.retry->options;
    const std::string attempts = std::to_string(r.max_attempts) + " attempts";
    const bool budget = h.destination->retry_budget.has_value();
    if (RetryingLayers() > 1 && r.retry_when_serving_a_retry && !budget) {
      Report("SG001", h, "retry.retry_when_serving_a_retry",
             attempts + " while " + std::to_string(RetryingLayers()) +
                 " layers retry, retried requests retry again and there is no retry_budget");
    }
    if (r.backoff.jitter == Jitter::kNone) {
      Report("SG002", h, "retry.backoff.jitter", "none: every caller retries at the same instants");
    }
    if (r.idempotent && IsNonIdempotentMethod(h.caller->method) && !h.requires_key) {
      Report("SG003", h, "retry.idempotent",
             "true for \"" + h.caller->method + "\" with no require_idempotency_key stage");
    }
    if (!budget) Report("SG004", h, "retry_budget", "missing while the retry makes " + attempts);
    NonRetryable(h);
  }

  void NonRetryable(const Hop& h) {
    const config::RetryConfig& r = *h.retry;
    std::string bad;
    for (StatusCode c : r.retryable_status_codes) {
      if (ClassifyGrpcCode(c) == OutcomeClass::kPermanent)
        bad += (bad.empty() ? "" : ", ") + std::string(StatusCodeName(c));
    }
    if (!bad.empty()) {
      Report("SG010", h, "retry.retryable_status_codes", "lists permanent codes " + bad);
    } else if (r.retryable_status_codes.empty()) {
      for (OutcomeClass c : {OutcomeClass::kPermanent, OutcomeClass::kDoNotRetry}) {
        if (r.options.retry_on.contains(c)) bad += (bad.empty() ? "" : ", ") + std::string(OutcomeClassName(c));
      }
      if (!bad.empty()) Report("SG010", h, "retry.retry_on", "includes " + bad + " (4xx, permanent errors)");
    }
  }

  void TimeoutRules(std::size_t i) {
    const Hop& h = hops_[i];
    if (h.retries() && h.overall_timeout != kInfiniteDuration && h.attempt_timeout != kInfiniteDuration &&
        h.AttemptsWorstCase() > h.overall_timeout) {
      Report("SG006", h, "timeout",
             Text(h.overall_timeout) + " but " + std::to_string(h.attempts()) + " attempts of " +
                 Text(h.attempt_timeout) + " plus backoff take up to " + Text(h.AttemptsWorstCase()));
    }
    if (i == 0) return;
    const Hop& up = hops_[i - 1];
    const Duration window = up.AttemptWindow();
    if (window == kInfiniteDuration) return;
    const Duration allowed = std::chrono::duration_cast<Duration>(window * (1.0 - chain_.hop_reserve));
    const Duration mine = h.WorstCase();
    if (mine <= allowed) return;
    Report("SG005", h, h.overall_timeout != kInfiniteDuration ? "timeout" : "retry.per_attempt_timeout",
           (mine == kInfiniteDuration ? std::string("unbounded") : "up to " + Text(mine)) + ", but its caller " +
               up.caller->name + " waits " + Text(window) + " per attempt (" + Text(allowed) + " after the " +
               Number(chain_.hop_reserve * 100) + "% hop reserve)");
  }

  void HedgeRules(const Hop& h) {
    if (!h.hedge) return;
    if (!h.destination->retry_budget) Report("SG007", h, "retry_budget", "missing while hedging");
    if (h.hedge->options.idempotent && IsNonIdempotentMethod(h.caller->method) && !h.requires_key) {
      Report("SG008", h, "hedge.idempotent",
             "true for \"" + h.caller->method + "\" with no require_idempotency_key stage");
    }
  }

  void BreakerRule(const Hop& h) {
    if (!h.breaker || h.caller->rate <= 0 || h.breaker->window_kind != WindowKind::kTimeBased) return;
    const double calls = h.caller->rate * h.breaker->window_size;
    if (calls >= h.breaker->minimum_number_of_calls) return;
    Report("SG009", h, "circuit_breaker.minimum_number_of_calls",
           std::to_string(h.breaker->minimum_number_of_calls) + " but a " + std::to_string(h.breaker->window_size) +
               "s window holds about " + Number(calls) + " calls at " + Number(h.caller->rate) + "/s");
  }

  // Presets build no chaos stage, and method entries add none: the
  // destination's own stages are all there are.
  void ChaosRule(const Hop& h) {
    const std::vector<config::StageConfig>& stages = h.destination->pipeline.stages;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const auto* chaos = stages[i].options<config::ChaosConfig>();
      if (chaos == nullptr) continue;
      const ChaosOptions& o = chaos->options;
      if (!o.enabled || o.rate <= 0) continue;
      Report("SG011", h, "pipeline.stages[" + std::to_string(i) + "].chaos.enabled",
             "true at rate " + Number(o.rate) + ": every deployment of this config injects " +
                 std::string(ChaosKindName(o.kind)) + " faults into " + Number(o.rate * 100) + "% of calls");
    }
  }

  const Chain& chain_;
  const std::vector<Hop>& hops_;
  LintResult& out_;
};

}  // namespace

std::string_view SeverityName(Severity s) noexcept { return s == Severity::kError ? "error" : "warning"; }

const std::vector<Rule>& Rules() {
  static const std::vector<Rule> rules = {
      {"SG001", "retry-at-every-layer", Severity::kError,
       "more than one layer retries, and this one neither honours the retry flag nor has a retry budget",
       "set retry_when_serving_a_retry to false, or add a retry_budget"},
      {"SG002", "backoff-without-jitter", Severity::kWarning,
       "the backoff has no jitter, so callers that failed together retry together", "set retry.backoff.jitter to full"},
      {"SG003", "non-idempotent-retry", Severity::kError,
       "a non-idempotent method is retried as idempotent without an idempotency key",
       "set retry.idempotent to false, or add a require_idempotency_key stage"},
      {"SG004", "no-retry-budget", Severity::kWarning, "a retrying destination has no retry budget",
       "add a retry_budget (e.g. token_bucket max_tokens 10, token_ratio 0.1)"},
      {"SG005", "timeout-not-shrinking", Severity::kError,
       "the callee may take longer than its caller waits for one attempt, less the hop reserve",
       "give the callee a timeout below the caller's per-attempt timeout minus the reserve"},
      {"SG006", "retries-cannot-run", Severity::kWarning,
       "per-attempt timeout x attempts plus backoff exceeds the overall timeout",
       "shorten the per-attempt timeout, lower max_attempts, or raise the overall timeout"},
      {"SG007", "hedge-without-budget", Severity::kWarning, "a hedging destination has no retry budget",
       "add a retry_budget: hedges spend it as retries do"},
      {"SG008", "hedge-non-idempotent", Severity::kError,
       "a non-idempotent method is hedged as idempotent without an idempotency key",
       "set hedge.idempotent to false, or add a require_idempotency_key stage"},
      {"SG009", "breaker-never-evaluates", Severity::kWarning,
       "at the expected rate the breaker's time window never holds its minimum number of calls",
       "lower circuit_breaker.minimum_number_of_calls or lengthen window_size"},
      {"SG010", "retry-non-retryable", Severity::kError,
       "the retry covers permanent outcomes (4xx, permanent codes) that fail again the same way",
       "retry only transient, overloaded and ambiguous outcomes"},
      {"SG011", "chaos-enabled", Severity::kWarning,
       "a chaos stage is enabled at a non-zero rate in a config that is meant to ship",
       "ship the chaos stage with enabled false and switch it on by a reload for the rehearsal"},
  };
  return rules;
}

bool IsRuleId(std::string_view id) {
  return std::any_of(Rules().begin(), Rules().end(), [id](const Rule& r) { return r.id == id; });
}

const Rule& RuleById(std::string_view id) {
  return *std::find_if(Rules().begin(), Rules().end(), [id](const Rule& r) { return r.id == id; });
}

bool LintResult::has_errors() const {
  return std::any_of(findings.begin(), findings.end(),
                     [](const Finding& f) { return RuleById(f.rule).severity == Severity::kError; });
}

LintResult Lint(const Chain& chain, const std::vector<Hop>& hops) {
  LintResult out;
  Checker(chain, hops, out).Run();
  return out;
}

}  // namespace stormguard::lint
