// stormguard/metrics/metric_family.h: a Prometheus family that a policy's
// events feed, declared next to the policy's code.
//
// MetricsListener's own families cover what every pipeline reports
// (attempts, retries, rejections, ...). A policy declares its own families
// here, by the events that feed them: its PolicyId and the event kinds.
// Every MetricsListener of the process exposes a registered family from then
// on, one series per instance, with no change to the listener:
//
//   const PolicyId quota = RegisterPolicyName("quota").value();
//   Status s = RegisterMetricFamilies({{.name = "stormguard_quota_rejected_total",
//                                       .help = "Calls the quota refused.",
//                                       .policy = quota,
//                                       .kinds = {EventKind::kRejected}}});
//   // scrape: stormguard_quota_rejected_total{name="payments"} 3
//
// A family may be labelled by the state an event carries (Event::to_state):
// a counter then counts per state entered, and a state gauge is 1 for the
// state the instance's last such event named and 0 for the others (the
// circuit breaker's stormguard_circuitbreaker_state is one, registered in
// src/guard/circuit_breaker_metrics.cc). A stage policy names its families
// in its registration (config/stage_policy.h, StagePolicy::metric_families).
//
// Cost: the listener's own families keep their per-thread cells; an event
// that feeds a registered family takes a slower path, a lookup among the
// registered families and a relaxed atomic add on a cell its instance's
// threads share. An instance allocates the cells of registered families
// (256 bytes per 32 series) when their first event reaches it.
//
// Bounds: kMaxMetricFamilies families and kMaxMetricFamilySeries series per
// instance in all, for the process.
//
// Thread safety: registration takes a lock and may run at any time,
// concurrently with recording and scrapes; a family is never removed.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stormguard/core/events.h"
#include "stormguard/core/status.h"

namespace stormguard {

enum class MetricType : std::uint8_t {
  kCounter,     // counts the events (per state entered, when labelled by state)
  kStateGauge,  // 1 for the state the last event entered, 0 for the others
};

struct MetricFamily {
  // [a-zA-Z_:][a-zA-Z0-9_:]*, up to 128 bytes; a counter's ends in _total,
  // and none is one of MetricsListener's own.
  std::string name;
  // One line of printable ASCII without a backslash, up to 256 bytes.
  std::string help;
  MetricType type = MetricType::kCounter;
  // The events that feed it: those of `policy` whose kind is in `kinds`.
  // kAttemptStarted never reaches a MetricsListener, and the attempt ends
  // of the pipeline, its retry and its hedge feed stormguard_attempts_total.
  PolicyId policy = PolicyId::kNone;
  std::vector<EventKind> kinds;
  // Labelled by state (a state gauge must be): the label's key ("state")
  // and the name of each state value, state_names[Event::to_state]. An
  // event whose state has no name here is not counted. Names are
  // [a-zA-Z0-9_], at most 255 of them.
  std::string state_label;
  std::vector<std::string> state_names;

  bool operator==(const MetricFamily&) const = default;
};

inline constexpr int kMaxMetricFamilies = 64;
inline constexpr int kMaxMetricFamilySeries = 256;

// Registers `families`, all or none. A family equal to a registered one is
// already there (registering twice is harmless); INVALID_ARGUMENT names the
// family and the field at fault; ALREADY_EXISTS for a name a different
// family has; RESOURCE_EXHAUSTED past the bounds above.
Status RegisterMetricFamilies(std::span<const MetricFamily> families);
inline Status RegisterMetricFamilies(std::initializer_list<MetricFamily> families) {
  return RegisterMetricFamilies(std::span<const MetricFamily>(families.begin(), families.size()));
}

}  // namespace stormguard
