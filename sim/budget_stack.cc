#include "stormguard/sim/budget_stack.h"

#include "stormguard/retry/failure_rate_gate.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::sim {

void BudgetStack::OnRequestStart(TimePoint now) noexcept {
  for (auto& m : members_) m->OnRequestStart(now);
}
void BudgetStack::OnRequestEnd(TimePoint now) noexcept {
  for (auto& m : members_) m->OnRequestEnd(now);
}
void BudgetStack::RecordSuccess(TimePoint now) noexcept {
  for (auto& m : members_) m->RecordSuccess(now);
}
void BudgetStack::RecordFailure(TimePoint now) noexcept {
  for (auto& m : members_) m->RecordFailure(now);
}
void BudgetStack::OnRetryEnd(TimePoint now) noexcept {
  for (auto& m : members_) m->OnRetryEnd(now);
}

bool BudgetStack::TryAcquireRetry(TimePoint now) noexcept {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (members_[i]->TryAcquireRetry(now)) continue;
    for (std::size_t k = 0; k < i; ++k) members_[k]->OnRetryEnd(now);
    return false;
  }
  return true;
}

Result<std::shared_ptr<RetryBudget>> MakeBudgetStack(const BudgetStackOptions& o) {
  std::vector<std::shared_ptr<RetryBudget>> members;
  if (o.gate) {  // first: it charges nothing when it says yes
    auto gate = FailureRateGate::Create();
    if (!gate.ok()) return std::move(gate).status();
    members.push_back(std::move(gate).value());
  }
  if (o.token_bucket) {
    auto bucket = TokenBucketBudget::Create({.max_tokens = o.max_tokens, .token_ratio = o.token_ratio});
    if (!bucket.ok()) return std::move(bucket).status();
    members.push_back(std::move(bucket).value());
  }
  if (members.size() <= 1) return members.empty() ? std::shared_ptr<RetryBudget>() : members[0];
  return std::shared_ptr<RetryBudget>(std::make_shared<BudgetStack>(std::move(members)));
}

}  // namespace stormguard::sim
