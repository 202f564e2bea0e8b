// stormguard/sim/controls.h: the retry-storm controls a scenario can turn on,
// and the hop they give.
//
//   none        every layer retries on its own (fixed timeouts, no markers)
//   budget      a token bucket per destination (10 tokens, 0.1 per success)
//   gate        a failure-rate gate per destination (no retries above 10%)
//   no-retry    x-no-retry: a layer that gave up says so; callers stop
//   retry-flag  x-retry-attempt: a request that is a retry (or serves one)
//               is not retried below; the flag travels down the whole chain
//   breaker     a circuit breaker per destination (the default settings, but
//               LayerPolicy::breaker's shorter wait in open)
//   all         all of the above, plus deadline propagation (each hop keeps
//               10% and hands the rest down; expired requests are refused)
//
//   sim::ControlSet c = sim::ControlsOf(sim::Control::kAll);
//   Result<sim::HopSpec> hop = sim::MakeHop(c, {.retries = 2, .timeout = 1s});
//
// Every hop gets its own budget objects (one per destination).
// Thread safety: plain functions.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/sim/chain.h"

namespace stormguard::sim {

enum class Control { kNone, kBudget, kGate, kNoRetry, kRetryFlag, kBreaker, kAll };

inline constexpr std::array<Control, 7> kAllControls = {Control::kNone, Control::kNoRetry, Control::kRetryFlag,
                                                        Control::kGate, Control::kBudget,  Control::kBreaker,
                                                        Control::kAll};

std::string_view ControlName(Control c) noexcept;
std::optional<Control> ParseControl(std::string_view name) noexcept;

struct ControlSet {
  bool budget = false;
  bool gate = false;
  bool no_retry = false;
  bool retry_flag = false;
  bool breaker = false;
  bool deadlines = false;
};

ControlSet ControlsOf(Control c) noexcept;

// What every retrying layer of a scenario does, before the controls.
struct LayerPolicy {
  int retries = 2;
  Duration timeout = std::chrono::seconds(1);  // per attempt, fixed
  BackoffOptions backoff{.kind = BackoffKind::kExponential,
                         .base = std::chrono::milliseconds(10),
                         .cap = std::chrono::seconds(1),
                         .jitter = Jitter::kFull};
  Duration min_attempt_time = Duration::zero();  // matters only with deadlines
  double max_tokens = 10;                        // the token bucket
  double token_ratio = 0.1;
  // The breaker: the library's defaults but 1 s open instead of
  // 30 s, so a breaker probes again within a scenario's few seconds.
  CircuitBreakerOptions breaker{.wait_in_open = std::chrono::seconds(1)};
};

Result<HopSpec> MakeHop(const ControlSet& controls, const LayerPolicy& policy);

// Runs the chain `spec_for(control)` builds for every control in turn, with
// `progress` (optional) told the fraction done over all of them.
Result<std::vector<ChainResult>> RunForEachControl(const std::vector<Control>& controls,
                                                   const std::function<Result<ChainSpec>(Control)>& spec_for,
                                                   const std::function<void(double)>& progress);

}  // namespace stormguard::sim
