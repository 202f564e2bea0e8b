// stormguard/guard/sliding_window.h: the recent calls a circuit breaker judges.
//
// Two windows, as in Resilience4j:
//
//   CountWindow  the last N calls: a ring of N one-byte slots; a new call
//                overwrites the oldest one and the totals subtract what it
//                evicted. Running totals make reading O(1).
//   TimeWindow   the calls of the last N seconds: a core/rolling_counter.h
//                of calls, failures and slow calls in one-second buckets,
//                striped per thread; reading is O(stripes).
//
// They report calls, failures and slow calls; the failure rate and the
// slow-call rate (fractions in [0, 1]) only once `minimum_calls` calls are in the
// window, because a rate over three calls says nothing.
//
//   auto w = SlidingWindow::Create(WindowKind::kCountBased, /*size=*/100,
//                                  /*minimum_calls=*/10);
//   w->Record(now, {.failure = true, .slow = false});
//   WindowMetrics m = w->Metrics(now);   // calls 1, failures 1, rates empty
//
// Healthy calls stay off shared cache lines: a clean success into a window
// that holds no failure and no slow call cannot move a rate, so Record skips
// the totals (a CountWindow writes nothing, a TimeWindow only its own
// stripe).
//
// Thread safety: every method may run concurrently; none takes a lock.
// Totals are exact once concurrent calls have returned; while they run a
// reader may see one call's failure before its call count, so counts are
// clamped to [0, calls]. A success racing the first failure of a clean
// TimeWindow may leave the judging to that failure's own Record. In a
// TimeWindow a call with a timestamp older than the newest second counts
// in the newest second, or not at all once older than the whole window;
// times before the clock's epoch count as time zero; a call racing a new
// second may land in the neighbouring one; and a window longer than 512 s
// keeps 512 buckets of size / 512 s. A CountWindow counts up to 2^31 - 1
// failures and as many slow calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "stormguard/core/rolling_counter.h"
#include "stormguard/core/time.h"

namespace stormguard {

enum class WindowKind : std::uint8_t { kCountBased, kTimeBased };

// "count_based" or "time_based".
std::string_view WindowKindName(WindowKind kind) noexcept;

// One finished call as a window sees it. A call can be both a failure and
// slow; a slow success still counts towards the slow-call rate.
struct CallRecord {
  bool failure = false;
  bool slow = false;
};

struct WindowCounts {
  std::int64_t calls = 0;
  std::int64_t failures = 0;
  std::int64_t slow_calls = 0;

  friend bool operator==(const WindowCounts&, const WindowCounts&) noexcept = default;
};

struct WindowMetrics {
  std::int64_t calls = 0;
  std::int64_t failures = 0;
  std::int64_t slow_calls = 0;
  std::optional<double> failure_rate{};    // a fraction in [0, 1]; empty below the minimum
  std::optional<double> slow_call_rate{};  // a fraction in [0, 1]; empty below the minimum

  static WindowMetrics From(const WindowCounts& counts, std::int64_t minimum_calls) noexcept;
};

// What Record tells the breaker. may_trip is false when the call cannot
// have moved a rate towards a threshold: it replaced an equal call in a
// CountWindow (counts are still the totals), or it was a clean success
// into a window without failures and slow calls (both rates stay 0; a
// TimeWindow leaves counts empty rather than add up every thread's stripe).
struct WindowUpdate {
  WindowCounts counts;  // the totals after the call, unless skipped (above)
  bool may_trip = true;
};

class SlidingWindow {
 public:
  // The largest sizes Create accepts: a million calls (a megabyte of slots)
  // or an hour (in 512 buckets of about 7 s).
  static constexpr int kMaxCountSize = 1'000'000;
  static constexpr int kMaxTimeSeconds = 3600;

  // `size` is calls or seconds; it and `minimum_calls` are clamped to
  // [1, the maximum above] (options validate them before this point).
  static std::unique_ptr<SlidingWindow> Create(WindowKind kind, int size, int minimum_calls);

  virtual ~SlidingWindow() = default;
  SlidingWindow(const SlidingWindow&) = delete;
  SlidingWindow& operator=(const SlidingWindow&) = delete;

  virtual WindowKind kind() const noexcept = 0;
  int size() const noexcept { return size_; }
  int minimum_calls() const noexcept { return minimum_calls_; }

  // Adds one finished call at `now` (see WindowUpdate).
  virtual WindowUpdate Record(TimePoint now, CallRecord call) noexcept = 0;
  // The totals in the window ending at `now`.
  virtual WindowCounts Counts(TimePoint now) const noexcept = 0;
  // Forgets every call; safe while other threads Record.
  virtual void Reset() noexcept = 0;

  WindowMetrics Metrics(TimePoint now) const noexcept { return WindowMetrics::From(Counts(now), minimum_calls_); }

 protected:
  SlidingWindow(int size, int minimum_calls) noexcept : size_(size), minimum_calls_(minimum_calls) {}

 private:
  int size_;
  int minimum_calls_;
};

// The last `size` calls.
class CountWindow final : public SlidingWindow {
 public:
  CountWindow(int size, int minimum_calls);

  WindowKind kind() const noexcept override { return WindowKind::kCountBased; }
  WindowUpdate Record(TimePoint now, CallRecord call) noexcept override;
  WindowCounts Counts(TimePoint now) const noexcept override;
  void Reset() noexcept override;

  // Full of clean successes: recording one more changes nothing (Record's
  // read-only case). Inline, for callers that skip Record then.
  bool FullAndClean() const noexcept {
    return calls_.load(std::memory_order_relaxed) == size() && bad_.load(std::memory_order_relaxed) == 0;
  }

 private:
  std::unique_ptr<std::atomic<std::uint8_t>[]> slots_;  // 0 = empty, else kRecorded | ...
  std::atomic<std::uint32_t> next_{0};                  // the slot the next call takes
  std::atomic<std::int64_t> calls_{0};
  std::atomic<std::uint64_t> bad_{0};  // failures + slow calls << 32
};

// The calls of the last `size` seconds, one bucket per second of `now`.
class TimeWindow final : public SlidingWindow {
 public:
  TimeWindow(int size_seconds, int minimum_calls);

  WindowKind kind() const noexcept override { return WindowKind::kTimeBased; }
  WindowUpdate Record(TimePoint now, CallRecord call) noexcept override;
  WindowCounts Counts(TimePoint now) const noexcept override;
  void Reset() noexcept override { counter_.Reset(); }

 private:
  void MarkBad(TimePoint now) noexcept;

  BasicRollingCounter<3> counter_;  // {calls, failures, slow calls}
  // From this time on (ns) no failure or slow call recorded so far is in
  // the window; written only by failures and slow calls.
  std::atomic<std::int64_t> clean_from_ns_;
};

}  // namespace stormguard
