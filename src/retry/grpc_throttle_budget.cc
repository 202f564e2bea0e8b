#include "stormguard/retry/grpc_throttle_budget.h"

#include <cmath>

#include "milli_tokens.h"
#include "stormguard/core/validation.h"

namespace stormguard {

using internal::FromMilli;
using internal::ToMilli;

std::vector<std::string> GrpcThrottleBudgetOptions::Validate() const {
  Validator v;
  const bool max_ok = std::isfinite(max_tokens) && max_tokens > 0 && max_tokens <= 1000;
  v.Check(max_ok, "max_tokens", "must be in (0, 1000]");
  v.Check(!max_ok || ToMilli(max_tokens) > 0, "max_tokens",
          "must be at least 0.001 (tokens keep three decimals)");
  const bool ratio_ok = std::isfinite(token_ratio) && token_ratio > 0 && token_ratio <= 1000;
  v.Check(ratio_ok, "token_ratio", "must be in (0, 1000]");
  v.Check(!ratio_ok || ToMilli(token_ratio) > 0, "token_ratio",
          "must be at least 0.001 (gRPC keeps three decimals)");
  return std::move(v).errors();
}

Result<std::shared_ptr<GrpcThrottleBudget>> GrpcThrottleBudget::Create(const GrpcThrottleBudgetOptions& options) {
  Status s = ValidationStatus("gRPC retry throttle options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<GrpcThrottleBudget>(new GrpcThrottleBudget(options));
}

GrpcThrottleBudget::GrpcThrottleBudget(const GrpcThrottleBudgetOptions& options)
    : options_(options),
      max_milli_(ToMilli(options.max_tokens)),
      ratio_milli_(ToMilli(options.token_ratio)),
      milli_tokens_(max_milli_) {}

void GrpcThrottleBudget::RecordSuccess(TimePoint /*now*/) noexcept {
  internal::ClampedAdd(milli_tokens_, ratio_milli_, 0, max_milli_);
}

void GrpcThrottleBudget::RecordFailure(TimePoint /*now*/) noexcept {
  internal::ClampedAdd(milli_tokens_, -1000, 0, max_milli_);
}

bool GrpcThrottleBudget::TryAcquireRetry(TimePoint /*now*/) noexcept {
  return milli_tokens_.load(std::memory_order_relaxed) > max_milli_ / 2;
}

double GrpcThrottleBudget::tokens() const noexcept {
  return FromMilli(milli_tokens_.load(std::memory_order_relaxed));
}

}  // namespace stormguard
