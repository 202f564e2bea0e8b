#include "plan/plan_report.h"

#include <cmath>
#include <cstdio>

namespace stormguard::plan {
namespace {

std::string Times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

// Computed figures are exact counts or bounds: no decimals unless needed.
std::string Computed(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, x == std::floor(x) ? "%.0fx" : "%.2fx", x);
  return buf;
}

std::string Ms(Duration d) {
  if (d == kInfiniteDuration) return "unbounded";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0fms", ToMillis(d));
  return buf;
}

nlohmann::json MsJson(Duration d) {
  if (d == kInfiniteDuration) return nullptr;
  return ToMillis(d);
}

}  // namespace

std::string PlanText(const Plan& plan) {
  std::string out = plan.chain + ": attempts per request when the bottom is down\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-12s %12s %12s %12s %12s %12s\n", "service", "no controls", "retry flag",
                "expected", "simulated", "time left");
  out += line;
  for (const LayerPlan& l : plan.layers) {
    std::snprintf(line, sizeof line, "%-12s %12s %12s %12s %12s %12s\n", l.service.c_str(),
                  Computed(l.uncontrolled).c_str(), Computed(l.with_flag).c_str(), Computed(l.expected).c_str(),
                  Times(l.simulated).c_str(), Ms(l.time_left).c_str());
    out += line;
  }
  out += "expected: with the retry flag and the retry budgets configured (a bound); simulated over " +
         std::to_string(plan.simulated_requests) + " requests\n";
  out += "worst-case latency at the top (the bottom hangs): " + Ms(plan.top_latency) + "\n";
  return out;
}

nlohmann::json PlanJson(const Plan& plan) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerPlan& l : plan.layers) {
    layers.push_back({{"service", l.service}, {"no_controls", l.uncontrolled}, {"retry_flag", l.with_flag},
                      {"expected", l.expected}, {"simulated", l.simulated}, {"time_left_ms", MsJson(l.time_left)}});
  }
  return {{"chain", plan.chain}, {"layers", layers}, {"simulated_requests", plan.simulated_requests},
          {"top_latency_ms", MsJson(plan.top_latency)}};
}

}  // namespace stormguard::plan
