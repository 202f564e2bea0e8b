#include "stormguard/core/events.h"

namespace stormguard {

std::string_view EventKindName(EventKind k) noexcept {
  switch (k) {
    case EventKind::kAttemptStarted: return "attempt_started";
    case EventKind::kAttemptEnded: return "attempt_ended";
    case EventKind::kRetryScheduled: return "retry_scheduled";
    case EventKind::kGaveUp: return "gave_up";
    case EventKind::kRejected: return "rejected";
    case EventKind::kStateChanged: return "state_changed";
    case EventKind::kTimedOut: return "timed_out";
    case EventKind::kHedgeLaunched: return "hedge_launched";
    case EventKind::kFallback: return "fallback";
    case EventKind::kAbandoned: return "abandoned";
    case EventKind::kChaosInjected: return "chaos_injected";
    case EventKind::kHedgeWon: return "hedge_won";
    case EventKind::kStateReported: return "state_reported";
    case EventKind::kAdmitted: return "admitted";
  }
  return "unknown";
}

}  // namespace stormguard
