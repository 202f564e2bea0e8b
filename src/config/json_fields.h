// src/config/json_fields.h: the JSON fields of every options struct, each
// listed once, under the name of its C++ member.
//
// Not listed, because they are not configuration: pointers to what a
// program supplies (listener, classifier, budget, latency tracker, breaker)
// and stripes (a per-machine tuning whose automatic default fits).
// wait_in_open_backoff is read apart (config_json.cc): it holds a Backoff.
#pragma once

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

template <class V>
void Fields(V& v, BackoffOptions& o) {
  v.Field("kind", o.kind);
  v.Field("base", o.base);
  v.Field("step", o.step);
  v.Field("multiplier", o.multiplier);
  v.Field("cap", o.cap);
  v.Field("jitter", o.jitter);
  v.Field("proportion", o.proportion);
  v.Field("spread", o.spread);
  v.Field("decorrelated_growth", o.decorrelated_growth);
}

template <class V>
void Fields(V& v, RetryConfig& c) {
  RetryOptions& o = c.options;
  v.Field("max_attempts", o.max_attempts);
  v.Field("backoff", o.backoff);
  v.Field("per_attempt_timeout", o.per_attempt_timeout);
  v.Field("min_attempt_time", o.min_attempt_time);
  v.Field("retry_on", o.retry_on);
  v.Field("idempotent", o.idempotent);
  v.Field("retry_when_serving_a_retry", o.retry_when_serving_a_retry);
  v.Field("max_pushback", o.max_pushback);
  v.Field("retryable_status_codes", c.retryable_status_codes);
}

template <class V>
void Fields(V& v, LatencyTrackerOptions& o) {
  v.Field("window", o.window);
  v.Field("slices", o.slices);
  v.Field("min_samples", o.min_samples);
}

template <class V>
void Fields(V& v, HedgeConfig& c) {
  HedgeOptions& o = c.options;
  v.Field("delay", o.delay);
  v.Field("max_hedged_attempts", o.max_hedged_attempts);
  v.Field("latency", c.latency);
  v.Field("quantile", o.quantile);
  v.Field("min_delay", o.min_delay);
  v.Field("max_delay", o.max_delay);
  v.Field("delay_refresh", o.delay_refresh);
  v.Field("non_fatal", o.non_fatal);
  v.Field("idempotent", o.idempotent);
  v.Field("hedge_when_serving_a_retry", o.hedge_when_serving_a_retry);
  v.Field("min_attempt_time", o.min_attempt_time);
  v.Field("max_pushback", o.max_pushback);
  v.Field("non_fatal_status_codes", c.non_fatal_status_codes);
}

template <class V>
void Fields(V& v, TokenBucketBudgetOptions& o) {
  v.Field("max_tokens", o.max_tokens);
  v.Field("token_ratio", o.token_ratio);
}

template <class V>
void Fields(V& v, GrpcThrottleBudgetOptions& o) {
  v.Field("max_tokens", o.max_tokens);
  v.Field("token_ratio", o.token_ratio);
}

template <class V>
void Fields(V& v, RatioBudgetOptions& o) {
  v.Field("ttl", o.ttl);
  v.Field("min_retries_per_second", o.min_retries_per_second);
  v.Field("retry_ratio", o.retry_ratio);
  v.Field("buckets", o.buckets);
}

template <class V>
void Fields(V& v, ConcurrencyBudgetOptions& o) {
  v.Field("retry_fraction", o.retry_fraction);
  v.Field("min_retry_concurrency", o.min_retry_concurrency);
}

template <class V>
void Fields(V& v, FailureRateGateOptions& o) {
  v.Field("window", o.window);
  v.Field("buckets", o.buckets);
  v.Field("failure_rate_threshold", o.failure_rate_threshold);
  v.Field("min_requests", o.min_requests);
}

template <class V>
void Fields(V& v, CircuitBreakerOptions& o) {
  v.Field("failure_rate_threshold", o.failure_rate_threshold);
  v.Field("slow_call_rate_threshold", o.slow_call_rate_threshold);
  v.Field("slow_call_duration", o.slow_call_duration);
  v.Field("window_kind", o.window_kind);
  v.Field("window_size", o.window_size);
  v.Field("minimum_number_of_calls", o.minimum_number_of_calls);
  v.Field("wait_in_open", o.wait_in_open);
  v.Field("permitted_calls_in_half_open", o.permitted_calls_in_half_open);
  v.Field("automatic_transition_from_open_to_half_open", o.automatic_transition_from_open_to_half_open);
  v.Field("max_wait_in_half_open", o.max_wait_in_half_open);
  v.Field("failure_outcomes", o.failure_outcomes);
  v.Field("ignored_outcomes", o.ignored_outcomes);
}

template <class V>
void Fields(V& v, BulkheadOptions& o) {
  v.Field("max_concurrent", o.max_concurrent);
  v.Field("max_wait", o.max_wait);
}

template <class V>
void Fields(V& v, RateLimiterOptions& o) {
  v.Field("rate", o.rate);
  v.Field("burst", o.burst);
  v.Field("max_wait", o.max_wait);
}

template <class V>
void Fields(V& v, AdaptiveThrottleOptions& o) {
  v.Field("window", o.window);
  v.Field("k", o.k);
  v.Field("min_requests", o.min_requests);
  v.Field("reject_on", o.reject_on);
  v.Field("seed", o.seed);
}

// The program's parts (instance_id, listener, clock, executor) are not fields.
template <class V>
void Fields(V& v, GlobalRateLimiterOptions& o) {
  v.Field("name", o.name);
  v.Field("limit", o.limit);
  v.Field("burst", o.burst);
  v.Field("refresh_interval", o.refresh_interval);
  v.Field("lease_length", o.lease_length);
  v.Field("fallback", o.fallback);
  v.Field("initial_instances", o.initial_instances);
}

template <class V>
void Fields(V& v, AimdLimitOptions& o) {
  v.Field("initial_limit", o.initial_limit);
  v.Field("min_limit", o.min_limit);
  v.Field("max_limit", o.max_limit);
  v.Field("backoff_ratio", o.backoff_ratio);
  v.Field("timeout", o.timeout);
}

template <class V>
void Fields(V& v, GradientLimitOptions& o) {
  v.Field("initial_limit", o.initial_limit);
  v.Field("min_limit", o.min_limit);
  v.Field("max_limit", o.max_limit);
  v.Field("smoothing", o.smoothing);
  v.Field("queue_size", o.queue_size);
  v.Field("rtt_tolerance", o.rtt_tolerance);
  v.Field("long_window", o.long_window);
}

template <class V>
void Fields(V& v, AdaptiveLimiterOptions& o) {
  v.Field("algorithm", o.algorithm);
  v.Field("aimd", o.aimd);
  v.Field("gradient", o.gradient);
}

template <class V>
void Fields(V& v, FallbackOptions& o) {
  v.Field("on_outcomes", o.on_outcomes);
  v.Field("on_any_rejection", o.on_any_rejection);
  v.Field("on_rejected_by", o.on_rejected_by);
  v.Field("skip_when_remaining_below", o.skip_when_remaining_below);
}

template <class V>
void Fields(V& v, TimeoutOptions& o) {
  v.Field("timeout", o.timeout);
  v.Field("abandon_after", o.abandon_after);
}

template <class V>
void Fields(V& v, ChaosConfig& c) {
  ChaosOptions& o = c.options;
  v.Field("kind", o.kind);
  v.Field("enabled", o.enabled);
  v.Field("rate", o.rate);
  v.Field("status", o.status);
  v.Field("latency", o.latency);
  v.Field("latency_max", o.latency_max);
  v.Field("seed", o.seed);
  v.Field("outside_retry_because", c.stage.outside_retry_because);
}

template <class V>
void Fields(V& v, AdaptiveTimeoutConfig& c) {
  AdaptiveTimeoutOptions& o = c.options;
  v.Field("quantile", o.quantile);
  v.Field("factor", o.factor);
  v.Field("min", o.min);
  v.Field("max", o.max);
  v.Field("warmup", o.warmup);
  v.Field("refresh", o.refresh);
  v.Field("latency", c.latency);
}

// A timeout stage's object: TimeoutOptions' fields, and "adaptive" (which
// only the per-attempt timeout accepts: its policy checks).
template <class V>
void Fields(V& v, TimeoutConfig& c) {
  Fields(v, c.timeout);
  v.Field("adaptive", c.adaptive);
}

template <class V>
void Fields(V& v, MethodConfig& o) {
  v.Field("timeout", o.timeout);
  v.Field("retry", o.retry);
  v.Field("hedge", o.hedge);
}

// ---- validation: each component's own Validate(), its errors under the path

template <class O>
  requires requires(const O& o) { o.Validate(); }
void Validated(ObjectReader& r, const O& o) { Nest(r.errors(), r.path(), o.Validate()); }
inline void AfterRead(ObjectReader& r, RetryConfig& c) { Validated(r, c.options); }
inline void AfterRead(ObjectReader& r, HedgeConfig& c) {
  Validated(r, c.options);
  if (c.latency) Nest(r.errors(), ChildPath(r.path(), "latency"), c.latency->Validate());
}
inline void AfterRead(ObjectReader& r, TokenBucketBudgetOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, GrpcThrottleBudgetOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, RatioBudgetOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, ConcurrencyBudgetOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, FailureRateGateOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, BulkheadOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, RateLimiterOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, AdaptiveThrottleOptions& o) { Validated(r, o); }
// Validated as the registry will create it: its instance is the program's.
inline void AfterRead(ObjectReader& r, GlobalRateLimiterOptions& o) {
  GlobalRateLimiterOptions as_made = o;
  as_made.instance_id = "configured-by-the-program";
  Validated(r, as_made);
}
inline void AfterRead(ObjectReader& r, AdaptiveLimiterOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, FallbackOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, TimeoutOptions& o) { Validated(r, o); }
inline void AfterRead(ObjectReader& r, ChaosConfig& c) { Validated(r, c.options); }
inline void AfterRead(ObjectReader& r, TimeoutConfig& c) { Validated(r, c.timeout); }
inline void AfterRead(ObjectReader& r, AdaptiveTimeoutConfig& c) {
  Validated(r, c.options);
  if (c.latency) Nest(r.errors(), ChildPath(r.path(), "latency"), c.latency->Validate());
}

// A method's timeout is an overall timeout stage's.
inline void AfterRead(ObjectReader& r, MethodConfig& m) {
  if (m.timeout) Nest(r.errors(), r.path(), TimeoutOptions{.timeout = *m.timeout}.Validate());
}

}  // namespace stormguard::config::config_internal
