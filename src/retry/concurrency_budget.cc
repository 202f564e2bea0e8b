#include "stormguard/retry/concurrency_budget.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"
#include "stormguard/retry/milli_tokens.h"

namespace stormguard {

std::vector<std::string> ConcurrencyBudgetOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(budget_percent) && budget_percent >= 0 && budget_percent <= 100,
          "budget_percent", "must be in [0, 100]");
  v.Check(min_retry_concurrency >= 0, "min_retry_concurrency", "must not be negative");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be in [0, 64]");
  return std::move(v).errors();
}

Result<std::shared_ptr<ConcurrencyBudget>> ConcurrencyBudget::Create(const ConcurrencyBudgetOptions& options) {
  Status s = ValidationStatus("concurrency budget options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<ConcurrencyBudget>(new ConcurrencyBudget(options));
}

ConcurrencyBudget::ConcurrencyBudget(const ConcurrencyBudgetOptions& options)
    : options_(options),
      percent_milli_(ToThousandths(options.budget_percent)),
      active_(options.stripes), outstanding_(options.stripes) {}

void ConcurrencyBudget::OnRequestStart(TimePoint /*now*/) noexcept { active_.Add(1); }
void ConcurrencyBudget::OnRequestEnd(TimePoint /*now*/) noexcept { active_.Add(-1); }
void ConcurrencyBudget::RecordSuccess(TimePoint /*now*/) noexcept {}
void ConcurrencyBudget::RecordFailure(TimePoint /*now*/) noexcept {}
void ConcurrencyBudget::OnRetryEnd(TimePoint /*now*/) noexcept { outstanding_.Add(-1); }

std::int64_t ConcurrencyBudget::RetryLimit(std::int64_t active) const noexcept {
  // budget_percent in thousandths of a percent: exact integer rounding down.
  const std::int64_t share = percent_milli_ * std::max<std::int64_t>(active, 0) / 100'000;
  return std::max(share, std::int64_t{options_.min_retry_concurrency});
}

bool ConcurrencyBudget::TryAcquireRetry(TimePoint /*now*/) noexcept {
  // Take the slot, then count: of two racing callers at least one sees the
  // other's slot (both counts are sequentially consistent), so together
  // they cannot pass the limit.
  outstanding_.Add(1);
  if (outstanding_.Sum() <= RetryLimit(active_.Sum())) return true;
  outstanding_.Add(-1);
  return false;
}

}  // namespace stormguard
