#include "metric_instance.h"

#include <algorithm>
#include <new>

namespace stormguard::metrics_internal {
namespace {

int StopReasonIndex(std::string_view reason) noexcept {
  int i = 0;
  while (i + 1 < static_cast<int>(kStopReasons.size()) && kStopReasons[static_cast<std::size_t>(i)] != reason) ++i;
  return i;
}

// Where a refusal counts: its policy's place in kRejecters, else "other".
int RejecterIndex(PolicyId policy) noexcept {
  if (policy == PolicyId::kAttemptTimeout) return RejecterIndex(PolicyId::kTimeout);
  int i = 0;
  while (i < static_cast<int>(kRejecters.size()) && kRejecters[static_cast<std::size_t>(i)] != policy) ++i;
  return i;
}

int ChaosKindIndex(std::string_view kind) noexcept {
  int i = 0;
  while (i + 1 < static_cast<int>(kChaosKinds.size()) && kChaosKinds[static_cast<std::size_t>(i)] != kind) ++i;
  return i;
}

int BucketIndex(Duration d) noexcept {
  int i = 0;
  while (i < static_cast<int>(kBucketNanos.size()) && d.count() > kBucketNanos[static_cast<std::size_t>(i)]) ++i;
  return i;
}

}  // namespace

Instance::~Instance() {
  for (std::atomic<Chunk*>& c : chunks_) delete c.load(std::memory_order_relaxed);
}

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
  if (e.kind == EventKind::kAttemptEnded) [[likely]]
    return OnAttemptEnded(e);
  OnOtherEvent(e);
}

void Instance::OnOtherEvent(const Event& e) noexcept {
  if ((families_.KindsOf(e.policy) >> static_cast<unsigned>(e.kind)) & 1U) RecordRegistered(e);
  switch (e.kind) {
    case EventKind::kRetryScheduled:
      if (e.policy == PolicyId::kRetry) Add(kRetries);
      return;
    case EventKind::kGaveUp:
      if (e.policy == PolicyId::kRetry) {
        Add(kRetryStops + StopReasonIndex(e.reason));
        Add(kRetryCalls + (e.attempt <= 1 ? 2 : 3));
      }
      if (e.reason == "budget_exhausted") {
        if (e.policy == PolicyId::kRetry) Add(kBudgetRefusals);
        if (e.policy == PolicyId::kHedge) Add(kBudgetRefusals + 1);
      }
      return;
    case EventKind::kRejected: return Add(kRejected + RejecterIndex(e.policy));
    case EventKind::kStateChanged:  // the breaker's families are registered
      if (e.policy == PolicyId::kOutlierDetection) endpoints_.Record(e);
      return;
    case EventKind::kStateReported: return;  // (src/guard/circuit_breaker_metrics.cc)
    case EventKind::kAdmitted: return;       // only registered families count admissions
    case EventKind::kTimedOut: return Add(kTimeouts);
    case EventKind::kHedgeLaunched: return Add(kHedgesSent);
    case EventKind::kHedgeWon: return Add(kHedgesWon);
    case EventKind::kFallback: return Add(kFallbacks);
    case EventKind::kAbandoned: return Add(kAbandoned);
    case EventKind::kChaosInjected: return Add(kChaosInjections + ChaosKindIndex(e.reason));
    case EventKind::kAttemptStarted: return;  // not wanted (wants_attempt_started)
    case EventKind::kAttemptEnded:            // OnEvent's, or another policy's (registered families)
      if (e.policy == PolicyId::kOutlierDetection) endpoints_.Record(e);
      return;
  }
}

// An attempt's end is reported once: by the retry or hedge stage when the
// pipeline has one, else by the pipeline itself. The common case (a thread
// that owns its shard, an attempt left out of the sample) calls nothing, so
// it saves no registers; every other case goes to RecordAttempt.
void Instance::OnAttemptEnded(const Event& e) noexcept {
  const bool retry = e.policy == PolicyId::kRetry;
  if (!retry && e.policy != PolicyId::kPipeline && e.policy != PolicyId::kHedge) return OnOtherEvent(e);
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

// An event of a policy with registered families: each family it feeds
// counts it, or (a state gauge) keeps the state it entered, plus one so
// that zero means none yet.
void Instance::RecordRegistered(const Event& e) noexcept {
  const std::uint32_t kind = 1U << static_cast<unsigned>(e.kind);
  for (int i = 0, n = families_.count(); i < n; ++i) {
    const RegisteredFamily& r = families_.at(i);
    const MetricFamily& f = r.family;
    if (f.policy != e.policy || (r.kinds & kind) == 0) continue;
    const bool by_state = !f.state_names.empty();
    if (by_state && e.to_state >= f.state_names.size()) continue;  // a state it does not name
    if (f.type == MetricType::kStateGauge) {
      if (auto* cell = RegisteredCell(r.first_cell)) cell->store(e.to_state + 1U, std::memory_order_relaxed);
    } else if (auto* cell = RegisteredCell(r.first_cell + (by_state ? e.to_state : 0))) {
      cell->fetch_add(1, std::memory_order_relaxed);
    }
  }
}

std::atomic<std::uint64_t>* Instance::RegisteredCell(int cell) noexcept {
  std::atomic<Chunk*>& slot = chunks_[static_cast<std::size_t>(cell / kChunkCells)];
  Chunk* chunk = slot.load(std::memory_order_acquire);
  if (chunk == nullptr) {
    Chunk* made = nullptr;
    try {  // plain new, not nothrow new: a program that replaces operator new pairs it with its delete
      made = new Chunk{};
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    if (slot.compare_exchange_strong(chunk, made, std::memory_order_acq_rel)) {
      chunk = made;
    } else {
      delete made;  // another thread made it first: `chunk` is theirs
    }
  }
  return &(*chunk)[static_cast<std::size_t>(cell % kChunkCells)];
}

std::uint64_t Instance::ReadRegistered(int cell) const noexcept {
  const Chunk* chunk = chunks_[static_cast<std::size_t>(cell / kChunkCells)].load(std::memory_order_acquire);
  return chunk == nullptr ? 0 : (*chunk)[static_cast<std::size_t>(cell % kChunkCells)].load(std::memory_order_relaxed);
}

}  // namespace stormguard::metrics_internal
