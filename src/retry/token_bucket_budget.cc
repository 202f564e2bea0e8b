#include "stormguard/retry/token_bucket_budget.h"

#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> TokenBucketBudgetOptions::Validate() const {
  Validator v;
  v.Check(std::isfinite(max_tokens) && max_tokens >= 1 && max_tokens <= 1e9, "max_tokens", "must be in [1, 1e9]");
  v.Check(std::isfinite(token_ratio) && token_ratio >= 0 && token_ratio <= 1e9, "token_ratio", "must be in [0, 1e9]");
  v.Check(!(token_ratio > 0 && ToThousandths(token_ratio) == 0), "token_ratio",
          "must be 0 or at least 0.001 (tokens keep three decimals)");
  return std::move(v).errors();
}

Result<std::shared_ptr<TokenBucketBudget>> TokenBucketBudget::Create(const TokenBucketBudgetOptions& options) {
  Status s = ValidationStatus("token bucket budget options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<TokenBucketBudget>(new TokenBucketBudget(options));
}

TokenBucketBudget::TokenBucketBudget(const TokenBucketBudgetOptions& options)
    : options_(options), tokens_(ToThousandths(options.max_tokens), ToThousandths(options.token_ratio)) {}

void TokenBucketBudget::RecordSuccess(TimePoint /*now*/) noexcept { tokens_.Refill(); }

void TokenBucketBudget::RecordFailure(TimePoint /*now*/) noexcept {}

bool TokenBucketBudget::TryAcquireRetry(TimePoint /*now*/) noexcept { return tokens_.TrySpend(1000); }

}  // namespace stormguard
