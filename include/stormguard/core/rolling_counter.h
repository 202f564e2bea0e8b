// stormguard/core/rolling_counter.h: two event counts over the last N time
// buckets, lock-free and striped per thread, with reads that cost
// O(stripes) whatever the bucket count.
//
// Seed 003 counts successes and failures in ten one-second buckets and
// judges the last ten seconds; Finagle's retry budget lets deposits expire
// the same way. Both ask "how many of each event in the window ending now",
// from every thread at once. (guard/sliding_window.h is the circuit
// breaker's window of calls, failures and slow calls.)
//
//   auto counter = RollingCounter::Create({.window = 10s, .buckets = 10});
//   counter->Add(clock.Now(), /*first=*/1, /*second=*/0);   // e.g. a success
//   RollingCounts c = counter->Sum(clock.Now());            // last 10 s
//
// The window covers the bucket holding `now` and the buckets-1 before it, so
// an event counts for between window - width and window (width =
// window / buckets). Times before the clock's epoch count as time zero.
//
// How: every stripe (core/striped_counter.h) keeps two cumulative counters
// (an Add is one CAS on the caller's own cache line). The first thread to
// enter a new bucket records every stripe's counters as that bucket's
// starting point, then publishes the bucket. A sum is "counters now minus
// counters when the window's oldest bucket began", four loads per stripe.
//
// Thread safety: Add and Sum may run concurrently from any thread. Add is
// lock-free; the first Add of each bucket also records the starting points
// (O(stripes) stores). No event is ever lost. Precision limits: an event
// that races with the start of a new bucket may be counted in the
// neighbouring bucket (it leaves the window one bucket earlier or later);
// events older than the window are refused; a negative Add that races a
// bucket start may take back from the neighbouring bucket; and sums read
// the stripes one at a time, not as one snapshot.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/core/time.h"

namespace stormguard {

struct RollingCounterOptions {
  Duration window = std::chrono::seconds(10);
  int buckets = 10;   // in [1, RollingCounter::kMaxBuckets]
  int stripes = 0;    // see ResolveStripes(); 0 = one per hardware thread

  std::vector<std::string> Validate() const;
};

// What a window counted. The two counts mean whatever the owner decides
// (successes and failures; requests and retries).
struct RollingCounts {
  std::int64_t first = 0;
  std::int64_t second = 0;
  friend bool operator==(const RollingCounts&, const RollingCounts&) = default;
};
std::ostream& operator<<(std::ostream& os, const RollingCounts& c);  // "{first, second}"

class RollingCounter {
 public:
  static constexpr int kMaxBuckets = 512;

  static Result<RollingCounter> Create(const RollingCounterOptions& options);

  // Adds to the bucket holding `now` (negative amounts take back). Returns
  // false, changing nothing, when `now` is older than the window.
  bool Add(TimePoint now, int first, int second) noexcept;

  // The totals over the window ending at `now` (never negative).
  RollingCounts Sum(TimePoint now) const noexcept;

  Duration bucket_width() const noexcept { return Duration(width_); }
  int buckets() const noexcept { return static_cast<int>(buckets_); }
  int stripes() const noexcept { return static_cast<int>(stripe_mask_ + 1); }

 private:
  // One stripe's cumulative counters, alone on a cache line.
  struct alignas(kCacheLineSize) Counters {
    std::atomic<std::uint64_t> count[2] = {};
  };
  struct alignas(kCacheLineSize) Newest {
    std::atomic<std::uint64_t> epoch{0};
  };

  explicit RollingCounter(const RollingCounterOptions& options);

  std::uint64_t EpochOf(TimePoint now, std::uint64_t newest) const noexcept;
  // Where stripe `stripe` stood on count `which` when `epoch` began,
  // stamped with the epoch (see rolling_counter.cc).
  std::atomic<std::uint64_t>& start(std::size_t stripe, std::uint64_t epoch, int which) const noexcept {
    return starts_[((stripe * (ring_mask_ + 1)) + (epoch & ring_mask_)) * 2 + static_cast<std::size_t>(which)];
  }
  std::uint64_t Advance(std::uint64_t last, std::uint64_t epoch) noexcept;
  void RecordStarts(std::uint64_t after, std::uint64_t through) noexcept;
  RollingCounts StripeCounts(std::size_t stripe, std::uint64_t epoch, std::uint64_t last) const noexcept;

  std::int64_t width_;           // nanoseconds per bucket
  std::uint64_t buckets_;
  std::uint64_t ring_mask_;      // ring size (a power of two >= buckets) - 1
  std::size_t stripe_mask_;
  std::unique_ptr<Newest> newest_;                       // the newest bucket published
  std::unique_ptr<Counters[]> counters_;                 // per stripe
  std::unique_ptr<std::atomic<std::uint64_t>[]> starts_;  // per stripe, bucket, count
};

}  // namespace stormguard
