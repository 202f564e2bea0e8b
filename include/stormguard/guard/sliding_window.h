// stormguard/guard/sliding_window.h: the recent calls a circuit breaker judges.
//
// Two windows, as in Resilience4j:
//
//   CountWindow  the last N calls: a ring of N one-byte slots; a new call
//                overwrites the oldest one and the totals subtract what it
//                evicted.
//   TimeWindow   the calls of the last N seconds: one bucket per second; a
//                bucket's counts leave the totals when its second falls out.
//
// Both keep running totals, so reading them is O(1). They report calls,
// failures and slow calls; the failure rate and the slow-call rate (percent)
// only once `minimum_calls` calls are in the window, because a rate over
// three calls says nothing.
//
//   auto w = SlidingWindow::Create(WindowKind::kCountBased, /*size=*/100,
//                                  /*minimum_calls=*/10);
//   w->Record(now, {.failure = true, .slow = false});
//   WindowMetrics m = w->Metrics(now);   // calls 1, failures 1, rates empty
//
// Thread safety: every method may run concurrently. Record takes no lock
// (atomic counters); a TimeWindow takes a mutex once per second to retire
// old buckets. Totals are exact once concurrent calls have returned; while
// they run a reader may see one call's failure before its call count, so
// counts are clamped to [0, calls]. A call recorded with a timestamp older
// than the newest second counts in the newest second. One window counts up
// to 2^31 - 1 failures and as many slow calls.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

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
  std::optional<double> failure_rate{};    // percent; empty below the minimum
  std::optional<double> slow_call_rate{};  // percent; empty below the minimum

  static WindowMetrics From(const WindowCounts& counts, std::int64_t minimum_calls) noexcept;
};

// What Record changed: the totals after the call, and whether they moved
// (a success replacing a success in a full CountWindow changes nothing).
struct WindowUpdate {
  WindowCounts counts;
  bool changed = true;
};

class SlidingWindow {
 public:
  // The largest sizes Create accepts: a million calls (a megabyte of slots)
  // or an hour of one-second buckets.
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

  // Adds one finished call at `now` and returns the totals after it.
  virtual WindowUpdate Record(TimePoint now, CallRecord call) noexcept = 0;
  // The totals at `now` (a TimeWindow first retires seconds that left it).
  virtual WindowCounts Counts(TimePoint now) noexcept = 0;
  // Forgets every call; safe while other threads Record.
  virtual void Reset() noexcept = 0;

  WindowMetrics Metrics(TimePoint now) noexcept {
    return WindowMetrics::From(Counts(now), minimum_calls_);
  }

 protected:
  SlidingWindow(int size, int minimum_calls) noexcept : size_(size), minimum_calls_(minimum_calls) {}

  // Failures in the low 32 bits, slow calls in the high 32: one atomic add
  // moves both totals.
  static constexpr std::uint64_t kSlowUnit = std::uint64_t{1} << 32;
  static constexpr std::uint64_t PackBad(CallRecord c) noexcept {
    return (c.failure ? 1u : 0u) + (c.slow ? kSlowUnit : 0u);
  }
  static WindowCounts Unpack(std::int64_t calls, std::uint64_t bad) noexcept;

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
  WindowCounts Counts(TimePoint now) noexcept override;
  void Reset() noexcept override;

 private:
  std::unique_ptr<std::atomic<std::uint8_t>[]> slots_;  // 0 = empty, else kRecorded | ...
  std::atomic<std::uint32_t> next_{0};                  // the slot the next call takes
  std::atomic<std::int64_t> calls_{0};
  std::atomic<std::uint64_t> bad_{0};                   // PackBad totals
};

// The calls of the last `size` seconds, one bucket per second of `now`.
class TimeWindow final : public SlidingWindow {
 public:
  TimeWindow(int size_seconds, int minimum_calls);

  WindowKind kind() const noexcept override { return WindowKind::kTimeBased; }
  WindowUpdate Record(TimePoint now, CallRecord call) noexcept override;
  WindowCounts Counts(TimePoint now) noexcept override;
  void Reset() noexcept override;

 private:
  struct Bucket {
    std::atomic<std::int64_t> calls{0};
    std::atomic<std::uint64_t> bad{0};
  };
  // The newest second and its bucket's index share one word,
  // second * 2^kIndexBits + index, so Record finds its bucket without a
  // division and never sees one without the other.
  static constexpr int kIndexBits = 12;
  static_assert(kMaxTimeSeconds < (1 << kIndexBits));
  static constexpr std::int64_t kNoHead = std::numeric_limits<std::int64_t>::min();
  static constexpr std::int64_t SecondOfHead(std::int64_t head) noexcept { return head >> kIndexBits; }

  // Makes `second` the newest one, retiring the buckets it pushes out;
  // returns the new head.
  std::int64_t Advance(std::int64_t second) noexcept;
  void Retire(Bucket& b) noexcept;
  std::size_t IndexOf(std::int64_t second) const noexcept;

  std::unique_ptr<Bucket[]> buckets_;
  std::atomic<std::int64_t> head_{kNoHead};
  std::mutex advance_mu_;
  std::atomic<std::int64_t> calls_{0};
  std::atomic<std::uint64_t> bad_{0};
};

}  // namespace stormguard
