#include "stormguard/retry/token_bucket_budget.h"

#include <cmath>

#include "milli_tokens.h"
#include "stormguard/core/validation.h"

namespace stormguard {

using internal::FromMilli;
using internal::ToMilli;

std::vector<std::string> TokenBucketBudgetOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(max_tokens) && max_tokens >= 1 && max_tokens <= 1e9, "max_tokens",
          "must be in [1, 1e9]");
  v.Check(std::isfinite(token_ratio) && token_ratio >= 0 && token_ratio <= 1e9, "token_ratio",
          "must be in [0, 1e9]");
  v.Check(!(token_ratio > 0 && ToMilli(token_ratio) == 0), "token_ratio",
          "must be 0 or at least 0.001 (tokens keep three decimals)");
  return std::move(v).errors();
}

Result<std::shared_ptr<TokenBucketBudget>> TokenBucketBudget::Create(const TokenBucketBudgetOptions& options) {
  Status s = ValidationStatus("token bucket budget options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<TokenBucketBudget>(new TokenBucketBudget(options));
}

TokenBucketBudget::TokenBucketBudget(const TokenBucketBudgetOptions& options)
    : options_(options),
      max_milli_(ToMilli(options.max_tokens)),
      ratio_milli_(ToMilli(options.token_ratio)),
      milli_tokens_(max_milli_) {}

void TokenBucketBudget::RecordSuccess(TimePoint /*now*/) noexcept {
  internal::ClampedAdd(milli_tokens_, ratio_milli_, 0, max_milli_);
}

void TokenBucketBudget::RecordFailure(TimePoint /*now*/) noexcept {}

bool TokenBucketBudget::TryAcquireRetry(TimePoint /*now*/) noexcept {
  std::int64_t old = milli_tokens_.load(std::memory_order_relaxed);
  while (old >= 1000) {
    if (milli_tokens_.compare_exchange_weak(old, old - 1000, std::memory_order_relaxed)) return true;
  }
  return false;
}

double TokenBucketBudget::tokens() const noexcept {
  return FromMilli(milli_tokens_.load(std::memory_order_relaxed));
}

}  // namespace stormguard
