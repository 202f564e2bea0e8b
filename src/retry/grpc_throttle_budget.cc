#include "stormguard/retry/grpc_throttle_budget.h"

#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> GrpcThrottleBudgetOptions::Validate() const {
  Validator v;
  const bool max_ok = std::isfinite(max_tokens) && max_tokens > 0 && max_tokens <= 1000;
  v.Check(max_ok, "max_tokens", "must be in (0, 1000]");
  v.Check(!max_ok || ToThousandths(max_tokens) > 0, "max_tokens",
          "must be at least 0.001 (tokens keep three decimals)");
  const bool ratio_ok = std::isfinite(token_ratio) && token_ratio > 0 && token_ratio <= 1000;
  v.Check(ratio_ok, "token_ratio", "must be in (0, 1000]");
  v.Check(!ratio_ok || ToThousandths(token_ratio) > 0, "token_ratio",
          "must be at least 0.001 (gRPC keeps three decimals)");
  return std::move(v).errors();
}

Result<std::shared_ptr<GrpcThrottleBudget>> GrpcThrottleBudget::Create(const GrpcThrottleBudgetOptions& options) {
  Status s = ValidationStatus("gRPC retry throttle options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<GrpcThrottleBudget>(new GrpcThrottleBudget(options));
}

GrpcThrottleBudget::GrpcThrottleBudget(const GrpcThrottleBudgetOptions& options)
    : options_(options), tokens_(ToThousandths(options.max_tokens), ToThousandths(options.token_ratio)) {}

void GrpcThrottleBudget::RecordSuccess(TimePoint /*now*/) noexcept { tokens_.Refill(); }
void GrpcThrottleBudget::RecordFailure(TimePoint /*now*/) noexcept { tokens_.Spend(1000); }

// gRPC: milli_tokens > max_milli_tokens / 2, in integers.
bool GrpcThrottleBudget::TryAcquireRetry(TimePoint /*now*/) noexcept { return tokens_.milli() > tokens_.max() / 2; }

}  // namespace stormguard
