#include "plan/plan_report.h"

#include <cmath>
#include <cstdio>

#include "render/printable.h"
#include "render/text_table.h"

namespace stormguard::plan {
namespace {

// Integers a double holds exactly: past them, a count is printed in
// scientific notation (three digits), so no column grows to 60 digits.
constexpr double kExactIntegers = 9007199254740992.0;  // 2^53

std::string Times(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", x);
  return buf;
}

// Computed figures are exact counts or bounds: no decimals unless needed.
std::string Computed(double x) {
  char buf[32];
  const char* format = x >= kExactIntegers ? "%.3gx" : x == std::floor(x) ? "%.0fx" : "%.2fx";
  std::snprintf(buf, sizeof buf, format, x);
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

// A computed figure without its "x".
std::string Count(double x) {
  std::string s = Computed(x);
  s.pop_back();
  return s;
}

// What the simulated column covers, and why it covers less when capped.
std::string SimulationNote(const Plan& plan) {
  const std::string cost =
      Count(plan.calls_per_request) + " calls per request, at most " + Count(plan.max_calls) + " simulated";
  const std::string over = "simulated over " + std::to_string(plan.simulated_requests) +
                           (plan.simulated_requests == 1 ? " request" : " requests");
  switch (plan.simulation) {
    case Simulation::kFull: return over;
    case Simulation::kCapped: return over + " only (capped: " + cost + ")";
    case Simulation::kSkipped: return "not simulated (capped: " + cost + ")";
  }
  return {};
}

std::string_view SimulationName(Simulation s) {
  switch (s) {
    case Simulation::kFull: return "full";
    case Simulation::kCapped: return "capped";
    case Simulation::kSkipped: return "skipped";
  }
  return "full";
}

}  // namespace

std::string PlanText(const Plan& plan) {
  render::TextTable table({"service", "no controls", "retry flag", "expected", "simulated", "time left"});
  for (const LayerPlan& l : plan.layers) {
    table.Row({render::Printable(l.service), Computed(l.uncontrolled), Computed(l.with_flag), Computed(l.expected),
               plan.simulation == Simulation::kSkipped ? "-" : Times(l.simulated), Ms(l.time_left)});
  }
  return render::Printable(plan.chain) + ": attempts per request when the bottom is down\n" + table.Render() +
         "expected: with the retry flag and the retry budgets configured (a bound); " + SimulationNote(plan) +
         "\nworst-case latency at the top (the bottom hangs): " + Ms(plan.top_latency) + "\n";
}

nlohmann::json PlanJson(const Plan& plan) {
  const bool skipped = plan.simulation == Simulation::kSkipped;
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerPlan& l : plan.layers) {
    layers.push_back({{"service", l.service},
                      {"no_controls", l.uncontrolled},
                      {"retry_flag", l.with_flag},
                      {"expected", l.expected},
                      {"simulated", skipped ? nlohmann::json(nullptr) : nlohmann::json(l.simulated)},
                      {"time_left_ms", MsJson(l.time_left)}});
  }
  const nlohmann::json simulation = {{"run", SimulationName(plan.simulation)},
                                     {"requested", plan.requested},
                                     {"calls_per_request", plan.calls_per_request},
                                     {"max_calls", plan.max_calls}};
  return {{"chain", plan.chain},
          {"layers", layers},
          {"simulated_requests", plan.simulated_requests},
          {"simulation", simulation},
          {"top_latency_ms", MsJson(plan.top_latency)}};
}

}  // namespace stormguard::plan
