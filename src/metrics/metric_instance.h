// The series of one MetricsListener instance (internal): where each event
// lands, and the per-thread shards that keep recording lock-free.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "endpoint_book.h"
#include "family_registry.h"
#include "stormguard/core/events.h"
#include "stormguard/core/internal/thread_shard.h"
#include "stormguard/core/success_tally.h"

namespace stormguard::metrics_internal {

inline constexpr int kOutcomeCount = static_cast<int>(OutcomeClass::kDeadlineExceeded) + 1;

// Attempt latency bucket bounds, in nanoseconds and as their `le` labels.
inline constexpr std::array<std::int64_t, 14> kBucketNanos = {
    500'000,     1'000'000,   2'500'000,   5'000'000,     10'000'000,    25'000'000,    50'000'000,
    100'000'000, 250'000'000, 500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};
inline constexpr std::array<std::string_view, 14> kBucketLabels = {
    "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10"};
inline constexpr int kBucketCount = static_cast<int>(kBucketNanos.size()) + 1;  // + the +Inf bucket

// Resilience4j's retry call kinds.
inline constexpr std::array<std::string_view, 4> kRetryKinds = {"successful_without_retry", "successful_with_retry",
                                                                "failed_without_retry", "failed_with_retry"};
// The retry policy's stop reasons (StopReasonName), and "other" last.
inline constexpr std::array<std::string_view, 11> kStopReasons = {
    "succeeded",          "cancelled",     "downstream_gave_up", "not_retryable",    "not_idempotent", "incoming_retry",
    "attempts_exhausted", "pushback_stop", "deadline",           "budget_exhausted", "other"};
// Policies that refuse calls, labelled by PolicyName; "other" after them
// (both timeouts count as "timeout"). The breaker's, first, are scraped as
// a family of their own (not permitted calls).
inline constexpr std::array<PolicyId, 8> kRejecters = {
    PolicyId::kCircuitBreaker, PolicyId::kBulkhead,    PolicyId::kRateLimiter, PolicyId::kAdaptiveConcurrency,
    PolicyId::kTimeout,        PolicyId::kTimeLimiter, PolicyId::kFallback,    PolicyId::kAdaptiveThrottle};
inline constexpr int kRejecterCount = static_cast<int>(kRejecters.size()) + 1;  // + "other"
// What fault injection injected (ChaosKindName), and "other" last.
inline constexpr std::array<std::string_view, 4> kChaosKinds = {"error", "latency", "outcome", "other"};
// Policies whose budgets refuse retries or hedges.
inline constexpr std::array<PolicyId, 2> kBudgetUsers = {PolicyId::kRetry, PolicyId::kHedge};

// Offsets of each counter in a shard.
enum Cell : int {
  kAttempts = 0,                         // by outcome
  kBuckets = kAttempts + kOutcomeCount,  // latency, not cumulative
  kLatencySumNanos = kBuckets + kBucketCount,
  kRetryCalls = kLatencySumNanos + 1,  // by kRetryKinds
  kRetries = kRetryCalls + static_cast<int>(kRetryKinds.size()),
  kRetryStops = kRetries + 1,                                             // by kStopReasons
  kBudgetRefusals = kRetryStops + static_cast<int>(kStopReasons.size()),  // by kBudgetUsers
  kRejected = kBudgetRefusals + static_cast<int>(kBudgetUsers.size()),    // by kRejecters
  kTimeouts = kRejected + kRejecterCount,
  kHedgesSent,
  kHedgesWon,
  kFallbacks,
  kAbandoned,
  kChaosInjections,  // by kChaosKinds
  kCellCount = kChaosInjections + static_cast<int>(kChaosKinds.size()),
};

// Per-thread shards of the cells (core/internal/thread_shard.h).
using core_internal::kOwnedShards;
using core_internal::kShardCount;
using core_internal::ThreadShard;

struct alignas(64) Shard {
  std::array<std::atomic<std::uint64_t>, kCellCount> cells{};
};

class Instance final : public Listener {
 public:
  explicit Instance(std::string name) : name_(std::move(name)) {}
  ~Instance() override;
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  void OnEvent(const Event& e) noexcept override;
  // The histogram takes weighted samples; the counters by outcome stay exact.
  AttemptTiming attempt_timing() const noexcept override { return AttemptTiming::kSampled; }
  bool wants_attempt_started() const noexcept override { return false; }
  // Untimed successes, most calls, are counted here instead of sent as events.
  SuccessTally* success_tally() noexcept override { return &tally_; }

  const std::string& name() const noexcept { return name_; }
  std::uint64_t Read(int cell) const noexcept;
  // A registered family's cell (RegisteredFamily::first_cell on); 0 until
  // its first event here.
  std::uint64_t ReadRegistered(int cell) const noexcept;
  const EndpointBook& endpoints() const noexcept { return endpoints_; }

 private:
  void Add(int cell, std::uint64_t n = 1) noexcept { Add(ThreadShard(), cell, n); }
  void Add(int shard, int cell, std::uint64_t n = 1) noexcept {
    core_internal::ShardAdd(shard, shards_[static_cast<std::size_t>(shard)].cells[static_cast<std::size_t>(cell)], n);
  }
  [[gnu::noinline]] void OnOtherEvent(const Event& e) noexcept;
  void OnAttemptEnded(const Event& e) noexcept;
  [[gnu::noinline]] void RecordAttempt(const Event& e, bool retry) noexcept;
  void AddLatency(int shard, Duration d, std::uint32_t weight) noexcept;
  [[gnu::noinline]] void RecordRegistered(const Event& e) noexcept;
  // Null only when memory ran out for the cell's chunk.
  std::atomic<std::uint64_t>* RegisteredCell(int cell) noexcept;

  // Registered families' cells, shared by the threads, in chunks made on
  // first use: an instance no registered family reaches allocates none.
  static constexpr int kChunkCells = 32;
  using Chunk = std::array<std::atomic<std::uint64_t>, kChunkCells>;

  const std::string name_;
  const FamilyRegistry& families_ = FamilyRegistry::Get();
  std::array<Shard, kShardCount> shards_;
  SuccessTally tally_;
  std::array<std::atomic<Chunk*>, kMaxMetricFamilySeries / kChunkCells> chunks_{};
  EndpointBook endpoints_;
};

}  // namespace stormguard::metrics_internal
