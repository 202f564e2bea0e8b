// tools/plan/plan_report.h: a Plan as a text table or as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "plan/plan.h"

namespace stormguard::plan {

std::string PlanText(const Plan& plan);
nlohmann::json PlanJson(const Plan& plan);

}  // namespace stormguard::plan
