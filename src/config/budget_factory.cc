#include "stormguard/config/budget_factory.h"

#include <type_traits>
#include <variant>

namespace stormguard::config {

Result<std::shared_ptr<RetryBudget>> MakeBudget(const BudgetOptions& options) {
  return std::visit(
      [](const auto& o) -> Result<std::shared_ptr<RetryBudget>> {
        using O = std::decay_t<decltype(o)>;
        auto made = [&o] {
          if constexpr (std::is_same_v<O, TokenBucketBudgetOptions>) return TokenBucketBudget::Create(o);
          if constexpr (std::is_same_v<O, GrpcThrottleBudgetOptions>) return GrpcThrottleBudget::Create(o);
          if constexpr (std::is_same_v<O, RatioBudgetOptions>) return RatioBudget::Create(o);
          if constexpr (std::is_same_v<O, ConcurrencyBudgetOptions>) return ConcurrencyBudget::Create(o);
          if constexpr (std::is_same_v<O, FailureRateGateOptions>) return FailureRateGate::Create(o);
        }();
        if (!made.ok()) return std::move(made).status();
        return std::shared_ptr<RetryBudget>(std::move(made).value());
      },
      options);
}

}  // namespace stormguard::config
