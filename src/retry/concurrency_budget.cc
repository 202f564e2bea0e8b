#include "stormguard/retry/concurrency_budget.h"

#include <algorithm>
#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> ConcurrencyBudgetOptions::Validate() const {
  Validator v;
  v.CheckRange(retry_fraction, "retry_fraction", kFraction);
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
      fraction_ppm_(std::llround(options.retry_fraction * 1e6)),
      active_(options.stripes),
      outstanding_(options.stripes) {}

void ConcurrencyBudget::OnRequestStart(TimePoint /*now*/) noexcept { active_.Add(1); }
void ConcurrencyBudget::OnRequestEnd(TimePoint /*now*/) noexcept { active_.Add(-1); }
void ConcurrencyBudget::RecordSuccess(TimePoint /*now*/) noexcept {}
void ConcurrencyBudget::RecordFailure(TimePoint /*now*/) noexcept {}
void ConcurrencyBudget::OnRetryEnd(TimePoint /*now*/) noexcept { outstanding_.Add(-1); }

std::int64_t ConcurrencyBudget::RetryLimit(std::int64_t active) const noexcept {
  // The fraction in millionths: exact integer rounding down.
  const std::int64_t share = fraction_ppm_ * std::max<std::int64_t>(active, 0) / 1'000'000;
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
