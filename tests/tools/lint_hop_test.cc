// Hop::LoopWorstCase: every attempt runs to its end and every wait is the
// longest its backoff allows. Once the waits reach the cap the rest is one
// multiplication, so its cost does not grow with the attempt count.
#include <gtest/gtest.h>

#include <climits>

#include "lint/lint_hop.h"

namespace stormguard::lint {
namespace {

using namespace std::chrono_literals;

Hop HopWith(int attempts, BackoffOptions backoff) {
  Hop hop;
  hop.retry = config::RetryConfig{};
  hop.retry->options.max_attempts = attempts;
  hop.retry->options.backoff = backoff;
  return hop;
}

// The definition, one retry at a time.
Duration StepByStep(const Hop& hop, Duration attempt) {
  const Backoff backoff = Backoff::Create(hop.retry->options.backoff).value();
  Duration total = attempt;
  for (int n = 1; n < hop.attempts(); ++n) total += attempt + backoff.Range(n).second;
  return total;
}

TEST(LintHopTest, LoopWorstCaseIsTheSumOfAttemptsAndLongestWaits) {
  const BackoffOptions backoffs[] = {
      {.kind = BackoffKind::kExponential, .base = 10ms, .cap = 100ms, .jitter = Jitter::kFull},
      {.kind = BackoffKind::kExponential,
       .base = 10ms,
       .multiplier = 1.5,
       .cap = 1s,
       .jitter = Jitter::kProportional,
       .proportion = 0.2},
      {.kind = BackoffKind::kLinear, .base = 10ms, .step = 30ms, .cap = 200ms, .jitter = Jitter::kEqual},
      {.kind = BackoffKind::kConstant, .base = 50ms, .cap = 1s, .jitter = Jitter::kNone},
      {.kind = BackoffKind::kExponential, .base = 10ms, .cap = 300ms, .jitter = Jitter::kDecorrelated},
      {.kind = BackoffKind::kExponential, .base = 0ms, .cap = 1s, .jitter = Jitter::kUniform, .spread = 20ms},
  };
  for (const BackoffOptions& b : backoffs) {
    for (int attempts : {1, 2, 3, 5, 8, 40, 1000}) {
      const Hop hop = HopWith(attempts, b);
      EXPECT_EQ(hop.LoopWorstCase(7ms), StepByStep(hop, 7ms)) << attempts << " attempts, cap " << b.cap.count();
    }
  }
}

// Past any configured bound (a hop built in code): still exact, at once.
TEST(LintHopTest, LoopWorstCaseOfTwoToTheThirtyOneAttemptsIsClosedForm) {
  const Hop hop = HopWith(INT_MAX, {.kind = BackoffKind::kExponential, .base = 10ms, .cap = 100ms});
  // Waits of 10, 20, 40 and 80 ms, then the cap for every later retry.
  const std::int64_t a = INT_MAX;
  EXPECT_EQ(hop.LoopWorstCase(1ms), a * 1ms + 150ms + (a - 5) * 100ms);
  EXPECT_EQ(hop.LoopWorstCase(kInfiniteDuration), kInfiniteDuration);
  const Hop hours = HopWith(INT_MAX, {.kind = BackoffKind::kConstant, .base = 1h, .cap = 1h});
  EXPECT_EQ(hours.LoopWorstCase(1h), kInfiniteDuration);  // 2^31 x 2h overflows: unbounded
}

}  // namespace
}  // namespace stormguard::lint
