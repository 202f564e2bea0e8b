// stormguard/config/config.h: the configuration model, plain structs.
//
// A Config names destinations (the services we call). Each destination has
//   - shared components: one retry budget, circuit breaker, bulkhead, rate
//     limiter and adaptive limiter, shared by every method that names them
//     (their state belongs to the destination, not to a method);
//   - its pipeline: a preset, or an explicit list of stages, outermost first;
//   - method entries that override the pipeline's overall timeout, its retry
//     and its hedge for some methods.
// The options are the components' own structs (RetryOptions, ...), so every
// option of every policy is here under its own name; a preset is its name
// and parameters (config/preset.h). Pointer fields of those structs (budget,
// listener, classifier, latency tracker, breaker) are not configuration:
// whoever builds the pipelines sets them, from the destination's shared
// components (the retry budget goes to every retry and hedge of the
// destination, the breaker to every circuit_breaker stage) and from the
// RetryConfig / HedgeConfig extras below.
//
// Method lookup (gRPC's method-config order), FindMethod(destination, name):
// the exact name ("pkg.Svc/Get", "GET /stock"), then the wildcard of its
// service ("pkg.Svc/*": the name up to its last '/', then "/*"), then the
// default entry "*"; none of them: the pipeline as configured. A method
// entry replaces, for that method, the pipeline's overall timeout, retry or
// hedge stage when it sets one (adding it when the pipeline has none: the
// timeout outermost but inside a fallback, the retry inside the timeout, the
// hedge inside the retry).
//
//   Result<Config> c = ParseConfig(text);                  // config/config_json.h
//   const DestinationConfig& d = c->destinations.at("inventory");
//   const MethodConfig* m = FindMethod(d, "GET /stock");  // null: the pipeline as it is
//
// Thread safety: plain values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stormguard/config/stage_policy.h"
#include "stormguard/core/status.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/fleet/replica_set.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/guard/adaptive_throttle.h"
#include "stormguard/guard/bulkhead.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/guard/rate_limiter.h"
#include "stormguard/hedge/adaptive_timeout.h"
#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/hedge/latency_tracker.h"
#include "stormguard/pipeline/stage_placement.h"
#include "stormguard/pipeline/stages/chaos_stage.h"
#include "stormguard/pipeline/stages/fallback_stage.h"
#include "stormguard/pipeline/stages/timeout_stage.h"
#include "stormguard/retry/budgets.h"
#include "stormguard/retry/retry_policy.h"

namespace stormguard::config {

// One of the five retry budgets (retry/budgets.h).
using BudgetOptions = std::variant<TokenBucketBudgetOptions, GrpcThrottleBudgetOptions, RatioBudgetOptions,
                                   ConcurrencyBudgetOptions, FailureRateGateOptions>;

struct RetryConfig {
  RetryOptions options;
  // Non-empty: exactly these codes are retried (gRPC's retryableStatusCodes):
  // the retry classifies them as transient and every other failure as
  // permanent (StatusCodeClassifier), so `retry_on` is not consulted.
  std::vector<StatusCode> retryable_status_codes;
};

struct HedgeConfig {
  HedgeOptions options;
  // Set: the delay follows a LatencyTracker with these options (HedgeOptions::latency).
  std::optional<LatencyTrackerOptions> latency;
  // Non-empty: exactly these codes are non-fatal (gRPC's nonFatalStatusCodes).
  std::vector<StatusCode> non_fatal_status_codes;
};

// A per-attempt timeout that follows observed latency (TimeoutOptions::adaptive).
struct AdaptiveTimeoutConfig {
  AdaptiveTimeoutOptions options;  // its tracker is set when the pipeline is built
  // Set: a LatencyTracker of its own with these options. Unset: the tracker
  // of the pipeline's hedge when that hedge follows latency (one tracker
  // for both), else one with the default options.
  std::optional<LatencyTrackerOptions> latency;
};

// A timeout stage's options: "timeout" (the overall timeout) and
// "attempt_timeout" (per attempt; it may follow latency, `adaptive`).
struct TimeoutConfig {
  TimeoutOptions timeout;
  std::optional<AdaptiveTimeoutConfig> adaptive;  // attempt_timeout only: `timeout` is then not used
};

// A fault injection stage. The registry keeps its policy across a reload that
// changes only `enabled` and `rate`, and switches those on the policy in use.
struct ChaosConfig {
  ChaosOptions options;     // its listener is the program's
  ChaosStageOptions stage;  // outside_retry_because
};

// The stages a configuration names are policies registered by name
// (config/stage_policy.h): "fallback" (FallbackOptions), "timeout" and
// "attempt_timeout" (TimeoutConfig), "retry" (RetryConfig), "hedge"
// (HedgeConfig), "chaos" (ChaosConfig); without options
// "require_idempotency_key", and the destination's shared guards
// "circuit_breaker", "bulkhead", "rate_limiter", "adaptive_concurrency",
// "adaptive_throttle", "global_rate_limit"; then any a program registers.

// A preset by name (config/preset.h) and its parameters: every parameter,
// the configuration's value or the preset's default.
struct PresetConfig {
  std::string name;           // "user_facing", "payment", or a program's own
  nlohmann::json parameters;  // {"entry_timeout": "2s", ...}; absent ones take the preset's default
};

// A preset, or the stages outermost first (none: the call runs bare).
struct PipelineConfig {
  std::optional<PresetConfig> preset;
  std::vector<StageConfig> stages;  // used when !preset
};

struct MethodConfig {
  std::optional<Duration> timeout;  // the overall timeout (gRPC `timeout`)
  std::optional<RetryConfig> retry;
  std::optional<HedgeConfig> hedge;
};

// A destination's replicas (docs/fleet.md): which endpoints, how to pick
// one per attempt, when to eject one.
struct ReplicasConfig {
  // A static list. Absent: the members come from elsewhere (discovery from
  // etcd), and a reload leaves them as they are.
  std::optional<std::vector<EndpointSpec>> endpoints;
  PickerKind picker = PickerKind::kPeakEwma;
  EndpointLoadOptions load;  // its weight is each endpoint's own
  OutlierDetectionOptions outlier_detection;

  ReplicaSetOptions SetOptions() const { return {.picker = picker, .load = load, .outlier = outlier_detection}; }
};

struct DestinationConfig {
  std::optional<BudgetOptions> retry_budget;
  std::optional<CircuitBreakerOptions> circuit_breaker;
  // An operator's override of the breaker's own judgement, the fleet-wide
  // switch of an incident ("circuit_breaker": {"force": "forced_open"}):
  // kForcedOpen refuses every call, kDisabled lets every call through. It
  // moves the breaker in place once a configuration is accepted (the
  // breaker is kept: force is not one of its options), and a later
  // configuration without it moves the breaker back to closed.
  std::optional<CircuitState> circuit_breaker_force;
  std::optional<BulkheadOptions> bulkhead;
  std::optional<RateLimiterOptions> rate_limiter;
  std::optional<AdaptiveLimiterOptions> adaptive_concurrency;
  std::optional<AdaptiveThrottleOptions> adaptive_throttle;
  // A limit for the whole fleet (fleet/global_rate_limiter.h): name, limit,
  // burst, refresh_interval, lease_length, fallback, initial_instances.
  // Where the shares live and who this instance is are the program's
  // (RegistryOptions::lease_stores and instance_id), never the file's.
  std::optional<GlobalRateLimiterOptions> global_rate_limit;
  std::optional<ReplicasConfig> replicas;
  PipelineConfig pipeline;
  // "pkg.Svc/Get", "pkg.Svc/*", "*" (see FindMethod).
  std::map<std::string, MethodConfig, std::less<>> methods;
};

struct Config {
  std::map<std::string, DestinationConfig, std::less<>> destinations;
};

// The entry that applies to `method`, in gRPC's order, or null.
const MethodConfig* FindMethod(const DestinationConfig& destination, std::string_view method);

}  // namespace stormguard::config
