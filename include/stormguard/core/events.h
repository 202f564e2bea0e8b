// stormguard/core/events.h: every decision a policy makes, as an event.
//
// Policies report attempts, retries, give-ups, rejections and state changes
// to a Listener. Metrics exporters (counters, Prometheus, logs) are
// listeners; none of them is needed for the policies to work.
//
//   struct Log : Listener {
//     void OnEvent(const Event& e) noexcept override { ... e.kind, e.policy ... }
//   };
//
// Thread safety: OnEvent may be called concurrently from every thread that
// runs a call; implementations must be thread-safe and must not block.
#pragma once

#include <string_view>

#include "stormguard/core/outcome.h"
#include "stormguard/core/time.h"

namespace stormguard {

enum class EventKind {
  kAttemptStarted,   // an attempt is about to run (attempt = its number)
  kAttemptEnded,     // it returned (outcome, latency)
  kRetryScheduled,   // a retry will run after `wait`
  kGaveUp,           // the retry policy stopped (reason)
  kRejected,         // a guard refused the call (policy, reason)
  kStateChanged,     // a breaker or limiter changed state (reason = "closed->open")
  kTimedOut,         // a timeout fired and cancelled an attempt
  kHedgeLaunched,    // a hedged attempt was sent
  kFallback,         // a fallback produced the result
  kAbandoned,        // an attempt kept running after its timeout
};

std::string_view EventKindName(EventKind k) noexcept;

struct Event {
  EventKind kind;
  std::string_view policy{};       // "retry", "circuit_breaker", ... (static strings)
  std::string_view reason{};       // why (a stop reason, a state change); static
  TimePoint at{};
  int attempt = 0;
  OutcomeClass outcome = OutcomeClass::kSuccess;
  Duration duration = Duration::zero();  // latency of an attempt, or the wait of a retry
};

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void OnEvent(const Event& event) noexcept = 0;
};

}  // namespace stormguard
