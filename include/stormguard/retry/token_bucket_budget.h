// stormguard/retry/token_bucket_budget.h: a token-bucket retry budget (docs/retry-budgets.md).
//
// A bucket of tokens that starts full. Every success adds `token_ratio`
// tokens, up to `max_tokens`; every retry takes one token; retries are
// allowed while at least one token is left. Failures cost nothing by
// themselves: it is the retries they ask for that drain the bucket. At a
// 99% success rate the bucket sustains about 10% retries; at 50% failures
// and 1000 rps the 10 starting tokens are gone in about 20 ms, and retries
// stop until successes earn tokens back.
//
//   auto budget = TokenBucketBudget::Create({.max_tokens = 10, .token_ratio = 0.1});
//   (*budget)->RecordSuccess(now);
//   if ((*budget)->TryAcquireRetry(now)) { /* retry */ }
//
// Tokens are integer milli-tokens (retry/milli_tokens.h): both options keep
// three decimals.
// Thread safety: every method is lock-free. A success on a full bucket is a
// single load; otherwise successes and retries update one shared atomic, so
// under heavy concurrent use they contend for its cache line.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/retry/milli_tokens.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard {

struct TokenBucketBudgetOptions {
  double max_tokens = 10;    // in [1, 1e9]; the bucket starts full
  double token_ratio = 0.1;  // tokens per success: 0, or in [0.001, 1e9]

  std::vector<std::string> Validate() const;
};

class TokenBucketBudget final : public RetryBudget {
 public:
  static Result<std::shared_ptr<TokenBucketBudget>> Create(const TokenBucketBudgetOptions& options = {});

  std::string_view name() const noexcept override { return "token_bucket"; }
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;

  double tokens() const noexcept { return tokens_.tokens(); }
  const TokenBucketBudgetOptions& options() const noexcept { return options_; }

 private:
  explicit TokenBucketBudget(const TokenBucketBudgetOptions& options);

  TokenBucketBudgetOptions options_;
  MilliTokens tokens_;
};

}  // namespace stormguard
