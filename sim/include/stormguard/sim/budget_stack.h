// stormguard/sim/budget_stack.h: several retry budgets acting as one.
//
// A RetryPolicy holds one budget; `--control all` wants the failure-rate gate and
// the token bucket on the same hop. A BudgetStack tells every member
// everything and allows a retry only when every member does, asking them in
// order and stopping at the first refusal; members that already granted it
// are told the retry ended (undoing what a concurrency budget counted). A
// token spent by a member before a later refusal is not given back, so put
// the members that charge nothing first: the gate, then the bucket.
//
//   Result<std::shared_ptr<RetryBudget>> b =
//       sim::MakeBudgetStack({.token_bucket = true, .gate = true});
//
// Thread safety: as thread-safe as its members.
#pragma once

#include <memory>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/retry/retry_budget.h"

namespace stormguard::sim {

class BudgetStack final : public RetryBudget {
 public:
  explicit BudgetStack(std::vector<std::shared_ptr<RetryBudget>> members) : members_(std::move(members)) {}

  std::string_view name() const noexcept override { return "budget_stack"; }
  void OnRequestStart(TimePoint now) noexcept override;
  void OnRequestEnd(TimePoint now) noexcept override;
  void RecordSuccess(TimePoint now) noexcept override;
  void RecordFailure(TimePoint now) noexcept override;
  bool TryAcquireRetry(TimePoint now) noexcept override;
  void OnRetryEnd(TimePoint now) noexcept override;

  const std::vector<std::shared_ptr<RetryBudget>>& members() const noexcept { return members_; }

 private:
  std::vector<std::shared_ptr<RetryBudget>> members_;
};

struct BudgetStackOptions {
  bool token_bucket = false;
  bool gate = false;  // the failure-rate gate, library defaults
  double max_tokens = 10;
  double token_ratio = 0.1;
};

// nullptr when neither is asked for, the budget itself when one is, a
// BudgetStack (gate first) when both are.
Result<std::shared_ptr<RetryBudget>> MakeBudgetStack(const BudgetStackOptions& options);

}  // namespace stormguard::sim
