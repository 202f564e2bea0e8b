// stormguard/config/grpc_service_config.h: a gRPC service config, read as it is.
//
// ParseConfig (config_json.h) reads a document with a top-level
// `methodConfig` or `retryThrottling` as a gRPC service config (gRFC A6
// schema, camelCase, proto3 durations "0.1s") and maps it onto one
// destination:
//
//   methodConfig[i].name[k]  {service, method} -> methods["service/method"];
//                            no method -> "service/*"; no service -> "*"
//   timeout                  -> MethodConfig::timeout (the overall timeout)
//   retryPolicy              -> MethodConfig::retry:
//     maxAttempts            -> max_attempts, capped at 5 silently
//     initialBackoff, maxBackoff, backoffMultiplier
//                            -> exponential backoff, base = min(initial, max),
//                               cap = max, multiplier; proportional jitter 0.2
//                               (A6: each wait is random(0.8, 1.2) times it)
//     retryableStatusCodes   -> retryable_status_codes (StatusCodeClassifier)
//     perAttemptRecvTimeout  -> per_attempt_timeout
//   hedgingPolicy            -> MethodConfig::hedge:
//     maxAttempts            -> max_hedged_attempts = min(maxAttempts, 5) - 1
//     hedgingDelay           -> delay (absent: 0, every attempt at once)
//     nonFatalStatusCodes    -> non_fatal_status_codes (empty: every failure fatal)
//   retryThrottling          -> the destination's retry budget, a
//                               GrpcThrottleBudget with maxTokens and tokenRatio
//                               (shared by the retries and hedges of every method)
// Retries and hedges from a service config are idempotent: the config's
// owner declared the methods safe to repeat.
//
// Rejected, with gRPC's field paths ("methodConfig[0].retryPolicy.maxAttempts:
// must be at least 2") and C-core's messages where it has them: maxAttempts
// missing, < 2, not a whole number ("must be a whole number") or above a
// uint32 ("must be at most 4294967295"); initialBackoff / maxBackoff
// missing, not a proto duration or <= 0; any duration above 604800s
// ("must be at most 604800s (168h)"); backoffMultiplier missing or <= 0;
// retryableStatusCodes missing, empty or with an unknown code; OK among
// retryable or non-fatal codes; hedgingDelay negative; both retryPolicy and
// hedgingPolicy; maxTokens missing, <= 0 or > 1000; tokenRatio missing or
// <= 0; two method configs for one name; a method without a service.
// Where C-core 1.51 departs from A6, this follows A6: status codes may be
// integers and any case; maxTokens above 1000 is an error; hedgingPolicy is
// validated; retryPolicy with hedgingPolicy is an error. Our own departures:
// a backoffMultiplier in (0, 1) is refused (our backoff never shrinks); a
// jittered wait never exceeds maxBackoff (A6 lets it reach 1.2x); a
// duration above 168h is refused (proto3 allows 315576000000s); keys
// outside the schema are errors, except transport settings that are read
// and not mapped (waitForReady, maxRequestMessageBytes,
// maxResponseMessageBytes, loadBalancingPolicy, loadBalancingConfig,
// healthCheckConfig). docs/configuration.md has the full table.
#pragma once

namespace stormguard::config {

inline constexpr int kGrpcMaxAttempts = 5;         // A6: larger values count as 5
inline constexpr double kGrpcBackoffJitter = 0.2;  // A6: waits are random(0.8, 1.2) x backoff
inline constexpr double kGrpcMaxTokens = 1000;     // A6: maxTokens in (0, 1000]

}  // namespace stormguard::config
