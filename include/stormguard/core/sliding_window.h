// stormguard/core/sliding_window.h: two event counts over the last N time
// buckets, lock-free.
//
// Seed 003 counts successes and failures in ten one-second buckets and
// judges the last ten seconds; Finagle's retry budget lets deposits expire
// the same way. A SlidingWindow keeps a ring of buckets; a bucket whose time
// has passed is reused for a new one, so old events slide out on their own.
//
//   auto window = SlidingWindow::Create({.window = 10s, .buckets = 10});
//   window->Add(clock.Now(), /*first=*/1, /*second=*/0);   // e.g. a success
//   WindowCounts c = window->Sum(clock.Now());              // last 10 s
//
// The window covers the bucket holding `now` and the buckets-1 before it, so
// an event counts for between window - width and window (width =
// window / buckets). Times before the clock's epoch count as time zero.
//
// Layout: one 64-bit word per (stripe, bucket) holds a 12-bit bucket tag and
// two 26-bit counts, so a bucket is reset to a new time and counted in one
// compare-and-swap: no count is lost to a reset, and a bucket left idle for
// any length of time never comes back to life. Each thread
// writes its own stripe (core/striped_counter.h), so writers on different
// cores do not share cache lines; Sum reads buckets x stripes words.
//
// Thread safety: Add and Sum may run concurrently from any thread. Add is
// lock-free (a CAS on this thread's own stripe, normally uncontended); the
// first Add of each new bucket also clears that bucket in every stripe.
// Sum is not a snapshot across buckets, but every completed Add is counted.
// Limits: a bucket counts at most kMaxCount events per stripe (further
// events are refused, Add returns false); events older than the window are
// refused; and a thread stalled for a whole window in the middle of Add may,
// when it resumes, wipe or restore one bucket of one stripe.
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

struct SlidingWindowOptions {
  Duration window = std::chrono::seconds(10);
  int buckets = 10;   // in [1, SlidingWindow::kMaxBuckets]
  int stripes = 0;    // see ResolveStripes(); 0 = one per hardware thread

  std::vector<std::string> Validate() const;
};

// What a window counted. The two counts mean whatever the owner decides
// (successes and failures; requests and retries).
struct WindowCounts {
  std::int64_t first = 0;
  std::int64_t second = 0;
  friend bool operator==(const WindowCounts&, const WindowCounts&) = default;
};
std::ostream& operator<<(std::ostream& os, const WindowCounts& c);  // "{first, second}"

class SlidingWindow {
 public:
  static constexpr int kMaxBuckets = 512;
  static constexpr std::int64_t kMaxCount = (std::int64_t{1} << 26) - 1;

  static Result<SlidingWindow> Create(const SlidingWindowOptions& options);

  // Adds to the bucket holding `now`. Negative amounts take back what this
  // thread added earlier in the same bucket. Returns false, changing
  // nothing, when `now` is older than the window, a count would leave
  // [0, kMaxCount], or a take-back finds its bucket already expired.
  bool Add(TimePoint now, int first, int second) noexcept;

  // The totals over the window ending at `now`.
  WindowCounts Sum(TimePoint now) const noexcept;

  Duration bucket_width() const noexcept { return Duration(width_); }
  int buckets() const noexcept { return static_cast<int>(buckets_); }
  int stripes() const noexcept { return static_cast<int>(stripe_mask_ + 1); }

 private:
  struct alignas(kCacheLineSize) Line {
    std::atomic<std::uint64_t> word[kCacheLineSize / sizeof(std::uint64_t)];
  };
  static constexpr std::size_t kWordsPerLine = kCacheLineSize / sizeof(std::uint64_t);

  SlidingWindow(const SlidingWindowOptions& options);

  std::uint64_t EpochOf(TimePoint now) const noexcept;
  // Newest epoch and generation (see sliding_window.cc).
  std::atomic<std::uint64_t>& state_word() const noexcept { return lines_[0].word[0]; }
  std::atomic<std::uint64_t>& word(std::size_t stripe, std::uint64_t epoch) const noexcept;
  std::uint64_t Advance(std::uint64_t state, std::uint64_t epoch) noexcept;
  void Clear(std::uint64_t after, std::uint64_t through, std::uint64_t gen) noexcept;

  std::int64_t width_;           // nanoseconds per bucket
  std::uint64_t buckets_;
  std::uint64_t ring_mask_;      // ring size (a power of two >= buckets) - 1
  std::size_t stripe_mask_;
  std::size_t stripe_words_;     // words per stripe, a whole number of lines
  std::unique_ptr<Line[]> lines_;  // line 0 holds the state word; stripes follow
};

}  // namespace stormguard
