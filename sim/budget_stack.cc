#include "stormguard/sim/budget_stack.h"

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
  if (!o.token_bucket && !o.gate) return std::shared_ptr<RetryBudget>();
  // Interim until the budgets branch lands on main.
  return Status(StatusCode::kUnimplemented, "retry budgets are not available yet");
}

}  // namespace stormguard::sim
