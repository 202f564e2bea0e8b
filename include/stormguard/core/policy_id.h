// stormguard/core/policy_id.h: which policy reported an event, as a number.
//
// Every event names its policy by a PolicyId. The library's own have fixed
// ids; a program's own policy obtains one by its name, once, and reports
// with it. Listeners switch on the id; the name is for logs and labels:
//
//   const PolicyId quota = RegisterPolicyName("quota").value();  // the same id every time
//   Emit(listener, {.kind = EventKind::kRejected, .policy = quota});
//   PolicyName(quota);                                            // "quota"
//
// A program may register kMaxProgramPolicies names; each keeps its id for
// the life of the process.
//
// Thread safety: RegisterPolicyName takes a lock; PolicyName and
// PolicyIndex take none and may run concurrently with it.
#pragma once

#include <cstdint>
#include <string_view>

#include "stormguard/core/result.h"

namespace stormguard {

enum class PolicyId : std::uint16_t {
  kNone,      // no policy named (a default-built event)
  kPipeline,  // the pipeline itself: the call's own attempts
  kRetry,
  kHedge,
  kCircuitBreaker,
  kBulkhead,
  kRateLimiter,
  kAdaptiveConcurrency,
  kTimeout,         // the overall timeout stage
  kAttemptTimeout,  // the per-attempt timeout stage
  kFallback,
  kChaos,
  kIdempotencyKey,  // the stage that requires an idempotency key
  kTimeLimiter,
  kOutlierDetection,  // a replica set ejecting and readmitting endpoints
  kGlobalRateLimit,   // a fleet-wide rate limit's lease (fleet/global_rate_limiter.h)
  kAdaptiveThrottle,  // client-side adaptive throttling (guard/adaptive_throttle.h)
  // A program's own, handed out by RegisterPolicyName from here up.
  kFirstProgramPolicy = 0x100,
};

inline constexpr int kBuiltInPolicyCount = static_cast<int>(PolicyId::kAdaptiveThrottle) + 1;
inline constexpr int kMaxProgramPolicies = 64;
// Every id PolicyIndex maps: the library's own, then a program's.
inline constexpr int kPolicyIndexCount = kBuiltInPolicyCount + kMaxProgramPolicies;

// The id of the policy named `name`: the library's own for its names
// ("retry"), else the one this process gave `name`, else a new one.
// INVALID_ARGUMENT for a name outside [a-z0-9_] or 1-64 bytes;
// RESOURCE_EXHAUSTED once kMaxProgramPolicies names are taken.
Result<PolicyId> RegisterPolicyName(std::string_view name);

// "retry", "quota"; "" for kNone, "unknown" for an id never handed out.
std::string_view PolicyName(PolicyId id) noexcept;

// A dense index in [0, kPolicyIndexCount) for tables kept per policy, or -1
// for an id outside both ranges.
constexpr int PolicyIndex(PolicyId id) noexcept {
  const int v = static_cast<int>(id);
  if (v < kBuiltInPolicyCount) return v;
  const int program = v - static_cast<int>(PolicyId::kFirstProgramPolicy);
  return program >= 0 && program < kMaxProgramPolicies ? kBuiltInPolicyCount + program : -1;
}

}  // namespace stormguard
