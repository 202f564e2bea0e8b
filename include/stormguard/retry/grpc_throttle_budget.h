// stormguard/retry/grpc_throttle_budget.h: gRPC's retryThrottling (A6).
//
// Exactly what a gRPC client does with `"retryThrottling": {"maxTokens": 10,
// "tokenRatio": 0.1}`, in integer milli-tokens:
//   - tokens start at max_tokens;
//   - every FAILURE takes 1 token (never below 0);
//   - every success adds token_ratio (never above max_tokens);
//   - a retry is allowed only while tokens > max_tokens / 2, strictly
//     (milli-tokens > max_milli_tokens / 2, integer division).
// Unlike TokenBucketBudget, the retry itself costs nothing: the failure
// that caused it already paid. token_ratio keeps three decimals and cuts
// the rest, as gRPC's config parser does (0.1009 counts as 0.100).
// max_tokens may have decimals too (A6 calls it a number in (0, 1000];
// gRPC C++ accepts only whole numbers, which behave identically here).
//
//   auto budget = GrpcThrottleBudget::Create({.max_tokens = 10, .token_ratio = 0.1});
//   (*budget)->RecordFailure(now);
//   bool may_retry = (*budget)->TryAcquireRetry(now);  // 9 > 5: yes
//
// Thread safety: every method is lock-free. TryAcquireRetry and a success
// on a full bucket only read; failures and refilling successes update one
// shared atomic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/retry/milli_tokens.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

struct GrpcThrottleBudgetOptions {
  double max_tokens = 10;    // gRPC maxTokens, in (0, 1000]
  double token_ratio = 0.1;  // gRPC tokenRatio, > 0 after keeping three decimals

  std::vector<std::string> Validate() const;
};

class GrpcThrottleBudget final : public RetryBudget {
 public:
  static Result<std::shared_ptr<GrpcThrottleBudget>> Create(const GrpcThrottleBudgetOptions& options = {});

  std::string_view name() const noexcept override { return "grpc_throttle"; }
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;

  double tokens() const noexcept { return tokens_.tokens(); }
  std::int64_t max_milli_tokens() const noexcept { return tokens_.max(); }
  std::int64_t milli_token_ratio() const noexcept { return tokens_.refill(); }
  const GrpcThrottleBudgetOptions& options() const noexcept { return options_; }

 private:
  explicit GrpcThrottleBudget(const GrpcThrottleBudgetOptions& options);

  GrpcThrottleBudgetOptions options_;
  MilliTokens tokens_;
};

}  // namespace stormguard
