#include "stormguard/retry/ratio_budget.h"

#include <algorithm>

#include "stormguard/core/validation.h"
#include "stormguard/retry/milli_tokens.h"

namespace stormguard {
namespace {
constexpr std::int64_t kUnitsPerRetry = 1000;
}  // namespace

std::vector<std::string> RatioBudgetOptions::Validate() const {
  Validator v;
  v.Check(ttl >= std::chrono::seconds(1) && ttl <= std::chrono::seconds(60), "ttl", "must be in [1s, 60s]");
  v.CheckRange(min_retries_per_second, "min_retries_per_second", {0, 1e6});
  v.CheckRange(retry_ratio, "retry_ratio", {0, 1000});
  // The ttl range already gives every bucket a positive width, so the
  // window can only object to `buckets` and `stripes`, named as here.
  std::vector<std::string> errors = std::move(v).errors();
  const auto window =
      RollingCounterOptions{.window = std::chrono::seconds(1), .buckets = buckets, .stripes = stripes}.Validate();
  errors.insert(errors.end(), window.begin(), window.end());
  return errors;
}

Result<std::shared_ptr<RatioBudget>> RatioBudget::Create(const RatioBudgetOptions& options) {
  Status s = ValidationStatus("ratio budget options", options.Validate());
  if (!s.ok()) return s;
  auto window = RollingCounter::Create({.window = options.ttl, .buckets = options.buckets, .stripes = options.stripes});
  if (!window.ok()) return std::move(window).status();
  return std::shared_ptr<RatioBudget>(new RatioBudget(options, std::move(window).value()));
}

RatioBudget::RatioBudget(const RatioBudgetOptions& options, RollingCounter window)
    : options_(options),
      deposit_units_(ToThousandths(options.retry_ratio)),
      reserve_units_(ToThousandths(options.min_retries_per_second *
                                   std::chrono::duration<double>(options.ttl).count())),
      window_(std::move(window)) {}

void RatioBudget::OnRequestStart(TimePoint now) noexcept { window_.Add(now, {1, 0}); }
void RatioBudget::RecordSuccess(TimePoint /*now*/) noexcept {}
void RatioBudget::RecordFailure(TimePoint /*now*/) noexcept {}

std::int64_t RatioBudget::BalanceUnits(const RollingCounts& c) const noexcept {
  return c[0] * deposit_units_ + reserve_units_ - c[1] * kUnitsPerRetry;
}

bool RatioBudget::TryAcquireRetry(TimePoint now) noexcept {
  // Withdraw, then look: whoever sees a negative balance gives its retry
  // back, so concurrent callers can never overdraw together.
  if (!window_.Add(now, {0, 1})) return false;
  if (BalanceUnits(window_.Sum(now)) >= 0) return true;
  window_.Add(now, {0, -1});
  return false;
}

double RatioBudget::balance(TimePoint now) const noexcept {
  const std::int64_t units = std::max<std::int64_t>(0, BalanceUnits(window_.Sum(now)));
  return static_cast<double>(units) / kUnitsPerRetry;
}

}  // namespace stormguard
