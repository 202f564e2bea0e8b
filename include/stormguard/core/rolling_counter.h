// stormguard/core/rolling_counter.h: N event counts over the last few time
// buckets, striped per thread, lock-free but for the opening of a bucket,
// with reads that cost O(stripes) whatever the bucket count.
//
// The failure-rate gate counts successes and failures in ten one-second buckets and
// judges the last ten seconds; Finagle's retry budget lets deposits expire
// the same way; the circuit breaker's time window (guard/sliding_window.h)
// counts calls, failures and slow calls per second. All ask "how many of
// each event in the window ending now", from every thread at once.
//
//   auto counter = RollingCounter::Create({.window = 10s, .buckets = 10});
//   counter->Add(clock.Now(), {1, 0});                // e.g. a success
//   RollingCounts c = counter->Sum(clock.Now());      // last 10 s: {1, 0}
//
// BasicRollingCounter<N> keeps N counts (instantiated for 2 and 3);
// RollingCounter is the two-count one the retry budgets use.
//
// The window covers the bucket holding `now` and the buckets-1 before it, so
// an event counts for between window - width and window (width =
// window / buckets). Times before the clock's epoch count as time zero.
//
// How: every stripe (core/striped_counter.h) keeps N cumulative counters
// (an Add is one CAS per non-zero amount on the caller's own cache line).
// The first thread to enter a new bucket records every stripe's counters as
// that bucket's starting point, then publishes the bucket. A sum is
// "counters now minus counters when the window's oldest bucket began",
// 2N loads per stripe.
//
// Thread safety: Add, Sum and Reset may run concurrently from any thread.
// Add is lock-free but for the first Add of each bucket, which records the
// starting points (O(stripes) stores) under a lock, once per bucket width:
// threads that also reach the new bucket meanwhile wait for it, so their
// events count in it. (Without the lock, a thread that lost the race to
// open the bucket overwrote starting points after events had landed, and
// they left the window early: lost.) No event is ever lost. Precision
// limits: an Add still working on the previous bucket when the next one
// opens may be counted in the new one (it leaves the window one bucket earlier or later);
// events older than the window are refused; a negative Add that races a
// bucket's opening may take back from the neighbouring bucket; an Add that races
// Reset may or may not be forgotten; and sums read the stripes one at a
// time, not as one snapshot.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct RollingCounterOptions {
  static constexpr int kMaxBuckets = 512;

  Duration window = std::chrono::seconds(10);
  int buckets = 10;  // in [1, kMaxBuckets]
  int stripes = 0;   // see ResolveStripes(); 0 = one per hardware thread

  std::vector<std::string> Validate() const;
};

template <std::size_t N>
class BasicRollingCounter {
 public:
  // What a window counted, in the owner's order (successes and failures;
  // requests and retries; calls, failures and slow calls).
  using Counts = std::array<std::int64_t, N>;
  using Amounts = std::array<int, N>;

  static Result<BasicRollingCounter> Create(const RollingCounterOptions& options);

  // Adds to the bucket holding `now`, or to the newest bucket when `now` is
  // older (negative amounts take back). Returns false, changing nothing,
  // when `now` is older than the window.
  bool Add(TimePoint now, Amounts amounts) noexcept;

  // The totals over the window ending at `now` (never negative).
  Counts Sum(TimePoint now) const noexcept;

  // Forgets everything added so far.
  void Reset() noexcept;

  Duration bucket_width() const noexcept { return Duration(width_); }
  int buckets() const noexcept { return static_cast<int>(buckets_); }
  int stripes() const noexcept { return static_cast<int>(stripe_mask_ + 1); }

 private:
  // One stripe's cumulative counters, alone on a cache line.
  struct alignas(kCacheLineSize) Counters {
    std::atomic<std::uint64_t> count[N] = {};
  };
  struct alignas(kCacheLineSize) Newest {
    std::atomic<std::uint64_t> epoch{0};
    std::mutex opening;  // held while a new bucket's starting points are recorded
  };

  explicit BasicRollingCounter(const RollingCounterOptions& options);

  std::uint64_t EpochOf(TimePoint now, std::uint64_t newest) const noexcept;
  // Where stripe `stripe` stood on count `which` when `epoch` began,
  // stamped with the epoch (see rolling_counter.cc).
  std::atomic<std::uint64_t>& start(std::size_t stripe, std::uint64_t epoch, std::size_t which) const noexcept {
    return starts_[((stripe * (ring_mask_ + 1)) + (epoch & ring_mask_)) * N + which];
  }
  std::uint64_t Advance(std::uint64_t epoch) noexcept;
  void RecordStarts(std::uint64_t first, std::uint64_t last) noexcept;
  Counts StripeCounts(std::size_t stripe, std::uint64_t epoch, std::uint64_t last) const noexcept;

  std::int64_t width_;  // nanoseconds per bucket
  std::uint64_t buckets_;
  std::uint64_t ring_mask_;  // ring size (a power of two >= buckets) - 1
  std::size_t stripe_mask_;
  std::unique_ptr<Newest> newest_;                        // the newest bucket published
  std::unique_ptr<Counters[]> counters_;                  // per stripe
  std::unique_ptr<std::atomic<std::uint64_t>[]> starts_;  // per stripe, bucket, count
};

// Defined in rolling_counter.cc for these counts only.
extern template class BasicRollingCounter<2>;
extern template class BasicRollingCounter<3>;

using RollingCounter = BasicRollingCounter<2>;
using RollingCounts = RollingCounter::Counts;

}  // namespace stormguard
