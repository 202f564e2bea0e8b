// stormguard/core/success_tally.h: a listener's direct count of the event
// most calls end with.
//
// Most calls end with one fast attempt that succeeded: kAttemptEnded with
// outcome kSuccess and weight 0 (left untimed by AttemptTiming::kSampled).
// A listener that only counts those hands out a SuccessTally
// (Listener::success_tally), and the retry policy and the pipeline add to it
// instead of building that event and calling OnEvent, which cost more than
// the counting itself. Every other event still reaches OnEvent, and so does
// this one from policies that do not use the tally: a listener with a tally
// still counts the event when it comes.
//
// Thread safety: Add and Read may run concurrently from any thread. Read
// sums per-thread cells: it is not a snapshot, but every completed Add counts.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "stormguard/core/internal/thread_shard.h"

namespace stormguard {

class SuccessTally {
 public:
  // Who counted the attempt, as the event's policy and attempt would say.
  enum Source : int {
    kRetryFirstAttempt,  // policy "retry", attempt <= 1
    kRetryLaterAttempt,  // policy "retry", attempt > 1
    kPipeline,           // policy "pipeline"
  };
  static constexpr int kSourceCount = 3;

  void Add(Source s) noexcept {
    const int shard = core_internal::ThreadShard();
    core_internal::ShardAdd(shard, shards_[static_cast<std::size_t>(shard)].cells[static_cast<std::size_t>(s)]);
  }

  std::uint64_t Read(Source s) const noexcept {
    std::uint64_t sum = 0;
    for (const Shard& shard : shards_) sum += shard.cells[static_cast<std::size_t>(s)].load(std::memory_order_relaxed);
    return sum;
  }

 private:
  struct alignas(64) Shard {
    std::array<std::atomic<std::uint64_t>, kSourceCount> cells{};
  };
  std::array<Shard, core_internal::kShardCount> shards_{};
};

}  // namespace stormguard
