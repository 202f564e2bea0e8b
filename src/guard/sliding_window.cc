#include "stormguard/guard/sliding_window.h"

#include <algorithm>
#include <limits>

namespace stormguard {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

// A CountWindow slot: zero when empty, else kRecorded plus the call's flags.
constexpr std::uint8_t kRecorded = 1;
constexpr std::uint8_t kFailure = 2;
constexpr std::uint8_t kSlow = 4;

constexpr std::uint8_t SlotOf(CallRecord c) noexcept {
  return static_cast<std::uint8_t>(kRecorded | (c.failure ? kFailure : 0) | (c.slow ? kSlow : 0));
}

constexpr CallRecord RecordOf(std::uint8_t slot) noexcept {
  return {.failure = (slot & kFailure) != 0, .slow = (slot & kSlow) != 0};
}

// CountWindow totals: failures in the low 32 bits, slow calls in the high
// 32, so one atomic add moves both.
constexpr std::uint64_t kSlowUnit = std::uint64_t{1} << 32;

constexpr std::uint64_t PackBad(CallRecord c) noexcept { return (c.failure ? 1u : 0u) + (c.slow ? kSlowUnit : 0u); }

// Concurrent adds and subtracts can land in any order, so a total may dip
// below zero for a moment; each 32-bit half is read as signed, then clamped.
WindowCounts Unpack(std::int64_t calls, std::uint64_t bad) noexcept {
  const auto failures = static_cast<std::int32_t>(static_cast<std::uint32_t>(bad));
  const std::uint64_t rest = bad - static_cast<std::uint64_t>(static_cast<std::int64_t>(failures));
  const auto slow = static_cast<std::int32_t>(static_cast<std::uint32_t>(rest >> 32));
  const std::int64_t c = std::max<std::int64_t>(calls, 0);
  return {.calls = c,
          .failures = std::clamp<std::int64_t>(failures, 0, c),
          .slow_calls = std::clamp<std::int64_t>(slow, 0, c)};
}

}  // namespace

std::string_view WindowKindName(WindowKind kind) noexcept {
  switch (kind) {
    case WindowKind::kCountBased: return "count_based";
    case WindowKind::kTimeBased: return "time_based";
  }
  return "unknown";
}

WindowMetrics WindowMetrics::From(const WindowCounts& counts, std::int64_t minimum_calls) noexcept {
  WindowMetrics m;
  m.calls = counts.calls;
  m.failures = counts.failures;
  m.slow_calls = counts.slow_calls;
  if (counts.calls > 0 && counts.calls >= minimum_calls) {
    const double calls = static_cast<double>(counts.calls);
    m.failure_rate = static_cast<double>(counts.failures) / calls;
    m.slow_call_rate = static_cast<double>(counts.slow_calls) / calls;
  }
  return m;
}

std::unique_ptr<SlidingWindow> SlidingWindow::Create(WindowKind kind, int size, int minimum_calls) {
  if (kind == WindowKind::kTimeBased) return std::make_unique<TimeWindow>(size, minimum_calls);
  return std::make_unique<CountWindow>(size, minimum_calls);
}

// ---- CountWindow -----------------------------------------------------------

CountWindow::CountWindow(int size, int minimum_calls)
    : SlidingWindow(std::clamp(size, 1, kMaxCountSize), std::clamp(minimum_calls, 1, kMaxCountSize)),
      slots_(std::make_unique<std::atomic<std::uint8_t>[]>(static_cast<std::size_t>(this->size()))) {}

WindowUpdate CountWindow::Record(TimePoint /*now*/, CallRecord call) noexcept {
  const std::uint8_t slot = SlotOf(call);
  // A clean success entering a full window of clean successes changes
  // nothing, whichever slot it would replace. Skipping the ring keeps the
  // healthy path read-only, so threads do not fight over one cache line.
  if (slot == kRecorded && FullAndClean()) {
    return {.counts = {.calls = size()}, .may_trip = false};
  }
  // Wraps with a compare-exchange rather than a modulo: a 64-bit division
  // would cost more than everything else here.
  const auto n = static_cast<std::uint32_t>(size());
  std::uint32_t index = next_.load(kRelaxed);
  while (!next_.compare_exchange_weak(index, index + 1 == n ? 0 : index + 1, kRelaxed)) {
  }
  const std::uint8_t old = slots_[index].exchange(slot, kRelaxed);
  if (old == slot) return {.counts = Unpack(calls_.load(kRelaxed), bad_.load(kRelaxed)), .may_trip = false};

  const std::int64_t calls = old == 0 ? calls_.fetch_add(1, kRelaxed) + 1 : calls_.load(kRelaxed);
  const std::uint64_t delta = PackBad(call) - (old == 0 ? 0 : PackBad(RecordOf(old)));
  const std::uint64_t bad = delta == 0 ? bad_.load(kRelaxed) : bad_.fetch_add(delta, kRelaxed) + delta;
  return {.counts = Unpack(calls, bad), .may_trip = true};
}

WindowCounts CountWindow::Counts(TimePoint /*now*/) const noexcept {
  return Unpack(calls_.load(kRelaxed), bad_.load(kRelaxed));
}

// Empties slot by slot with exchange, so a Record racing with the reset
// either lands before (and is subtracted) or after (and stays counted).
void CountWindow::Reset() noexcept {
  for (int i = 0; i < size(); ++i) {
    const std::uint8_t old = slots_[static_cast<std::size_t>(i)].exchange(0, kRelaxed);
    if (old == 0) continue;
    calls_.fetch_sub(1, kRelaxed);
    bad_.fetch_sub(PackBad(RecordOf(old)), kRelaxed);
  }
}

// ---- TimeWindow ------------------------------------------------------------

namespace {

BasicRollingCounter<3> MakeCounter(int seconds) {
  const int buckets = std::min(seconds, RollingCounterOptions::kMaxBuckets);
  return BasicRollingCounter<3>::Create({.window = std::chrono::seconds(seconds), .buckets = buckets}).value();
}

}  // namespace

TimeWindow::TimeWindow(int size_seconds, int minimum_calls)
    : SlidingWindow(std::clamp(size_seconds, 1, kMaxTimeSeconds), std::max(minimum_calls, 1)),
      counter_(MakeCounter(size())),
      clean_from_ns_(std::numeric_limits<std::int64_t>::min()) {}

WindowUpdate TimeWindow::Record(TimePoint now, CallRecord call) noexcept {
  const bool bad = call.failure || call.slow;
  // Marked before the add: a success that still reads the old mark added
  // its call before this one's Counts below, which then judges both.
  if (bad) MarkBad(now);
  const bool counted = counter_.Add(now, {1, call.failure ? 1 : 0, call.slow ? 1 : 0});
  if (!bad && now.time_since_epoch().count() >= clean_from_ns_.load()) return {.may_trip = false};
  return {.counts = Counts(now), .may_trip = counted};
}

// The window stays unclean until the bucket holding `now` has left it.
void TimeWindow::MarkBad(TimePoint now) noexcept {
  const std::int64_t width = counter_.bucket_width().count();
  const std::int64_t window = width * counter_.buckets();
  const std::int64_t latest = std::numeric_limits<std::int64_t>::max() - window;
  const std::int64_t ns = std::clamp<std::int64_t>(now.time_since_epoch().count(), 0, latest);
  const std::int64_t clean_from = ns - ns % width + window;
  std::int64_t seen = clean_from_ns_.load();
  while (seen < clean_from && !clean_from_ns_.compare_exchange_weak(seen, clean_from)) {
  }
}

WindowCounts TimeWindow::Counts(TimePoint now) const noexcept {
  const auto [calls, failures, slow_calls] = counter_.Sum(now);
  return {.calls = calls, .failures = std::min(failures, calls), .slow_calls = std::min(slow_calls, calls)};
}

}  // namespace stormguard
