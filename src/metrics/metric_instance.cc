#include "metric_instance.h"

#include <algorithm>

namespace stormguard::metrics_internal {
namespace {

int StopReasonIndex(std::string_view reason) noexcept {
  int i = 0;
  while (i + 1 < static_cast<int>(kStopReasons.size()) && kStopReasons[static_cast<std::size_t>(i)] != reason) ++i;
  return i;
}

int RejecterIndex(std::string_view policy) noexcept {
  // Per-attempt and overall timeouts both count as "timeout".
  if (policy.starts_with("timeout")) return 4;
  int i = 0;
  while (i + 1 < static_cast<int>(kRejecters.size()) && kRejecters[static_cast<std::size_t>(i)] != policy) ++i;
  return i;
}

int ChaosKindIndex(std::string_view kind) noexcept {
  int i = 0;
  while (i + 1 < static_cast<int>(kChaosKinds.size()) && kChaosKinds[static_cast<std::size_t>(i)] != kind) ++i;
  return i;
}

// The state a breaker's kStateChanged ("closed->open") or kStateReported
// ("closed") event names, as an index of kBreakerStates; -1 for another
// policy's event or an unknown state.
int BreakerStateIndex(const Event& e) noexcept {
  if (e.policy != "circuit_breaker") return -1;
  std::string_view state = e.reason;
  if (const std::size_t arrow = state.find("->"); arrow != std::string_view::npos) state.remove_prefix(arrow + 2);
  for (std::size_t i = 0; i < kBreakerStates.size(); ++i) {
    if (kBreakerStates[i] == state) return static_cast<int>(i);
  }
  return -1;
}

int BucketIndex(Duration d) noexcept {
  int i = 0;
  while (i < static_cast<int>(kBucketNanos.size()) && d.count() > kBucketNanos[static_cast<std::size_t>(i)]) ++i;
  return i;
}

}  // namespace

std::uint64_t Instance::Read(int cell) const noexcept {
  std::uint64_t sum = 0;
  for (const Shard& s : shards_) sum += s.cells[static_cast<std::size_t>(cell)].load(std::memory_order_relaxed);
  switch (cell) {  // successes the tally counted are attempts and retry calls too
    case kAttempts + static_cast<int>(OutcomeClass::kSuccess):
      return sum + tally_.Read(SuccessTally::kRetryFirstAttempt) + tally_.Read(SuccessTally::kRetryLaterAttempt) +
             tally_.Read(SuccessTally::kPipeline);
    case kRetryCalls: return sum + tally_.Read(SuccessTally::kRetryFirstAttempt);
    case kRetryCalls + 1: return sum + tally_.Read(SuccessTally::kRetryLaterAttempt);
    default: return sum;
  }
}

// The one event of a call that succeeds first time, kept out of the switch
// so that its path saves and restores no more registers than it uses.
void Instance::OnEvent(const Event& e) noexcept {
  if (e.kind == EventKind::kAttemptEnded) [[likely]] return OnAttemptEnded(e);
  OnOtherEvent(e);
}

void Instance::OnOtherEvent(const Event& e) noexcept {
  switch (e.kind) {
    case EventKind::kRetryScheduled:
      if (e.policy == "retry") Add(kRetries);
      return;
    case EventKind::kGaveUp:
      if (e.policy == "retry") {
        Add(kRetryStops + StopReasonIndex(e.reason));
        Add(kRetryCalls + (e.attempt <= 1 ? 2 : 3));
      }
      if (e.reason == "budget_exhausted") {
        if (e.policy == "retry") Add(kBudgetRefusals);
        if (e.policy == "hedge") Add(kBudgetRefusals + 1);
      }
      return;
    case EventKind::kRejected:
      return Add(kRejected + RejecterIndex(e.policy));
    case EventKind::kStateChanged: return OnStateChanged(e);
    case EventKind::kStateReported:
      if (const int i = BreakerStateIndex(e); i >= 0) breaker_state_.store(i, std::memory_order_relaxed);
      return;
    case EventKind::kTimedOut: return Add(kTimeouts);
    case EventKind::kHedgeLaunched: return Add(kHedgesSent);
    case EventKind::kHedgeWon: return Add(kHedgesWon);
    case EventKind::kFallback: return Add(kFallbacks);
    case EventKind::kAbandoned: return Add(kAbandoned);
    case EventKind::kChaosInjected: return Add(kChaosInjections + ChaosKindIndex(e.reason));
    case EventKind::kAttemptStarted: return;  // not wanted (wants_attempt_started)
    case EventKind::kAttemptEnded: return;    // OnEvent's
  }
}

// An attempt's end is reported once: by the retry or hedge stage when the
// pipeline has one, else by the pipeline itself. The common case (a thread
// that owns its shard, an attempt left out of the sample) calls nothing, so
// it saves no registers; every other case goes to RecordAttempt.
void Instance::OnAttemptEnded(const Event& e) noexcept {
  const bool retry = e.policy == "retry";
  if (!retry && e.policy != "pipeline" && e.policy != "hedge") return;
  const int shard = core_internal::tls_shard;
  const auto outcome = static_cast<int>(e.outcome);
  if (shard < 0 || shard >= kOwnedShards || e.weight != 0 || outcome >= kOutcomeCount) [[unlikely]] {
    return RecordAttempt(e, retry);
  }
  auto& cells = shards_[static_cast<std::size_t>(shard)].cells;
  const auto bump = [](std::atomic<std::uint64_t>& c) {  // only this thread writes it
    c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  };
  bump(cells[static_cast<std::size_t>(kAttempts + outcome)]);
  if (retry && e.outcome == OutcomeClass::kSuccess) {
    bump(cells[static_cast<std::size_t>(kRetryCalls + (e.attempt <= 1 ? 0 : 1))]);
  }
}

void Instance::RecordAttempt(const Event& e, bool retry) noexcept {
  const int shard = ThreadShard();
  const auto outcome = static_cast<int>(e.outcome);
  if (outcome < kOutcomeCount) Add(shard, kAttempts + outcome);
  if (e.weight != 0) AddLatency(shard, e.duration, e.weight);
  if (retry && e.outcome == OutcomeClass::kSuccess) Add(shard, kRetryCalls + (e.attempt <= 1 ? 0 : 1));
}

// A sample standing for `weight` attempts: the buckets and the sum grow by
// as much as those attempts would add, so they and _count (the buckets'
// total) stay unbiased estimates and +Inf equals _count.
void Instance::AddLatency(int shard, Duration d, std::uint32_t weight) noexcept {
  const Duration clamped = std::max(d, Duration::zero());
  std::uint64_t weighted = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(clamped.count()), std::uint64_t{weight}, &weighted)) {
    weighted = UINT64_MAX;  // only a custom policy's nonsense event gets here
  }
  Add(shard, kBuckets + BucketIndex(clamped), weight);
  Add(shard, kLatencySumNanos, weighted);
}

void Instance::OnStateChanged(const Event& e) noexcept {
  if (const int i = BreakerStateIndex(e); i >= 0) {
    breaker_state_.store(i, std::memory_order_relaxed);
    Add(kTransitions + i);
  }
}

}  // namespace stormguard::metrics_internal
