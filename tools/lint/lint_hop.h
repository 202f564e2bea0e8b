// tools/lint/lint_hop.h: what one service's call to the next does, read off
// its configuration: the effective retry, hedge and timeouts of the
// destination it calls, for the method it calls (a method entry replaces the
// pipeline's overall timeout, retry or hedge; a preset is expanded into the
// stages it builds).
#pragma once

#include <optional>
#include <vector>

#include "lint/lint_chain.h"

namespace stormguard::lint {

struct Hop {
  const ChainService* caller = nullptr;
  const ChainService* callee = nullptr;
  const config::DestinationConfig* destination = nullptr;
  std::optional<config::RetryConfig> retry;
  std::optional<config::HedgeConfig> hedge;
  std::optional<CircuitBreakerOptions> breaker;  // the destination's, or a preset's own
  Duration overall_timeout = kInfiniteDuration;
  Duration attempt_timeout = kInfiniteDuration;  // an attempt_timeout stage, else the retry's
  bool requires_key = false;                     // a require_idempotency_key stage

  int attempts() const noexcept { return retry ? retry->options.max_attempts : 1; }
  bool retries() const noexcept { return attempts() > 1; }
  // Every attempt runs to its timeout and every wait is the longest the
  // backoff allows; infinite when nothing bounds an attempt.
  Duration AttemptsWorstCase() const;
  // The same when each attempt takes `attempt` (a callee that answers sooner).
  Duration LoopWorstCase(Duration attempt) const;
  // The longest the whole call may take: the overall timeout, or the attempts' worst case.
  Duration WorstCase() const;
  // The longest one attempt may take: the callee's time to answer.
  Duration AttemptWindow() const;
};

// "POST ..." and "PATCH ...": HTTP methods that are not idempotent.
bool IsNonIdempotentMethod(std::string_view method) noexcept;

// One Hop per service but the last, caller first. INVALID_ARGUMENT when a
// preset cannot be expanded.
Result<std::vector<Hop>> HopsOf(const Chain& chain);

}  // namespace stormguard::lint
