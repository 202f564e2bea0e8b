// stormguard/sim/deadline_demo.h: a retry loop judged by
// the time left rather than by a count.
//
// One call with a 250 ms budget against a downstream that always answers
// 503 after 60 ms. The policy may try 5 times (full-jitter exponential
// backoff from 20 ms, capped at 200 ms) but needs 60 ms left for a call
// after its wait, and spends tokens of a shared token bucket (10 tokens,
// 0.1 per success). The library's own blocking driver (ExecuteWithRetry)
// runs it on a ManualClock. Expected: 3 calls, 8.0 tokens left, stopped
// because the remaining budget cannot fit another wait plus a call.
//
//   auto r = sim::RunDeadlineDemo({});
//   r->calls;         // 3
//   r->tokens_left;   // 8.0
//
// Thread safety: reentrant.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/retry/retry_policy.h"

namespace stormguard::sim {

struct DeadlineOptions {
  Duration budget = std::chrono::milliseconds(250);
  Duration call = std::chrono::milliseconds(60);  // every call takes this long, then 503
  int max_attempts = 5;
  Duration base = std::chrono::milliseconds(20);
  Duration cap = std::chrono::milliseconds(200);
  Duration min_call = std::chrono::milliseconds(60);  // least time left worth a call
  double max_tokens = 10;
  double token_ratio = 0.1;
  std::uint64_t seed = 7;

  std::vector<std::string> Validate() const;
};

struct DeadlineAttempt {
  int number = 0;
  Duration start = Duration::zero();  // from the call's start
  Duration end = Duration::zero();
  Duration wait = Duration::zero();  // the backoff after it (zero for the last)
};

struct DeadlineResult {
  DeadlineOptions options;
  int calls = 0;
  double tokens_left = 0;
  StopReason stop_reason = StopReason::kSucceeded;
  Duration elapsed = Duration::zero();
  std::vector<DeadlineAttempt> attempts;
  std::string final_status;  // what the caller got back
};

Result<DeadlineResult> RunDeadlineDemo(const DeadlineOptions& options);

// A sentence for a stop reason: kDeadline is "the remaining budget cannot
// fit another wait plus a call".
std::string_view StopExplanation(StopReason r) noexcept;

}  // namespace stormguard::sim
