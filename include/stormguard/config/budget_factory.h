// stormguard/config/budget_factory.h: the retry budget a destination's
// `retry_budget` options describe, as the registry builds it (the registry
// and `stormguard plan` make theirs here, so both get the same object).
#pragma once

#include <memory>

#include "stormguard/config/config.h"
#include "stormguard/core/result.h"

namespace stormguard::config {

// INVALID_ARGUMENT when the options do not validate.
Result<std::shared_ptr<RetryBudget>> MakeBudget(const BudgetOptions& options);

}  // namespace stormguard::config
