#include "stormguard/guard/sliding_window.h"

#include <algorithm>

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

// The whole second `now` falls in (floor, also before the epoch).
std::int64_t SecondOf(TimePoint now) noexcept {
  constexpr std::int64_t kNanosPerSecond = 1'000'000'000;
  const std::int64_t ns = now.time_since_epoch().count();
  const std::int64_t q = ns / kNanosPerSecond;
  return (ns % kNanosPerSecond != 0 && ns < 0) ? q - 1 : q;
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
    m.failure_rate = 100.0 * static_cast<double>(counts.failures) / calls;
    m.slow_call_rate = 100.0 * static_cast<double>(counts.slow_calls) / calls;
  }
  return m;
}

std::unique_ptr<SlidingWindow> SlidingWindow::Create(WindowKind kind, int size, int minimum_calls) {
  if (kind == WindowKind::kTimeBased) return std::make_unique<TimeWindow>(size, minimum_calls);
  return std::make_unique<CountWindow>(size, minimum_calls);
}

// Concurrent adds and subtracts can land in any order, so a total may dip
// below zero for a moment; each 32-bit half is read as signed, then clamped.
WindowCounts SlidingWindow::Unpack(std::int64_t calls, std::uint64_t bad) noexcept {
  const auto failures = static_cast<std::int32_t>(static_cast<std::uint32_t>(bad));
  const std::uint64_t rest = bad - static_cast<std::uint64_t>(static_cast<std::int64_t>(failures));
  const auto slow = static_cast<std::int32_t>(static_cast<std::uint32_t>(rest >> 32));
  const std::int64_t c = std::max<std::int64_t>(calls, 0);
  return {.calls = c,
          .failures = std::clamp<std::int64_t>(failures, 0, c),
          .slow_calls = std::clamp<std::int64_t>(slow, 0, c)};
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
  if (slot == kRecorded && calls_.load(kRelaxed) == size() && bad_.load(kRelaxed) == 0) {
    return {.counts = {.calls = size()}, .changed = false};
  }
  // Wraps with a compare-exchange rather than a modulo: a 64-bit division
  // would cost more than everything else here.
  const auto n = static_cast<std::uint32_t>(size());
  std::uint32_t index = next_.load(kRelaxed);
  while (!next_.compare_exchange_weak(index, index + 1 == n ? 0 : index + 1, kRelaxed)) {
  }
  const std::uint8_t old = slots_[index].exchange(slot, kRelaxed);
  if (old == slot) return {.counts = Unpack(calls_.load(kRelaxed), bad_.load(kRelaxed)), .changed = false};

  const std::int64_t calls = old == 0 ? calls_.fetch_add(1, kRelaxed) + 1 : calls_.load(kRelaxed);
  const std::uint64_t delta = PackBad(call) - (old == 0 ? 0 : PackBad(RecordOf(old)));
  const std::uint64_t bad = delta == 0 ? bad_.load(kRelaxed) : bad_.fetch_add(delta, kRelaxed) + delta;
  return {.counts = Unpack(calls, bad), .changed = true};
}

WindowCounts CountWindow::Counts(TimePoint /*now*/) noexcept {
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

TimeWindow::TimeWindow(int size_seconds, int minimum_calls)
    : SlidingWindow(std::clamp(size_seconds, 1, kMaxTimeSeconds),
                    std::max(minimum_calls, 1)),
      buckets_(std::make_unique<Bucket[]>(static_cast<std::size_t>(size()))) {}

std::size_t TimeWindow::IndexOf(std::int64_t second) const noexcept {
  const std::int64_t n = size();
  return static_cast<std::size_t>(((second % n) + n) % n);
}

void TimeWindow::Retire(Bucket& b) noexcept {
  calls_.fetch_sub(b.calls.exchange(0, kRelaxed), kRelaxed);
  bad_.fetch_sub(b.bad.exchange(0, kRelaxed), kRelaxed);
}

std::int64_t TimeWindow::Advance(std::int64_t second) noexcept {
  std::lock_guard lock(advance_mu_);
  const std::int64_t head = head_.load(kRelaxed);
  if (second <= SecondOfHead(head)) return head;  // another thread got there first
  if (head != kNoHead) {
    // The buckets of seconds newest+1 .. second still hold seconds that are
    // now `size` or more seconds old.
    const std::int64_t newest = SecondOfHead(head);
    const std::int64_t steps = std::min<std::int64_t>(second - newest, size());
    for (std::int64_t s = newest + 1; s <= newest + steps; ++s) Retire(buckets_[IndexOf(s)]);
  }
  const std::int64_t next = second * (std::int64_t{1} << kIndexBits) +
                            static_cast<std::int64_t>(IndexOf(second));
  head_.store(next, std::memory_order_release);
  return next;
}

WindowUpdate TimeWindow::Record(TimePoint now, CallRecord call) noexcept {
  const std::int64_t second = SecondOf(now);
  std::int64_t head = head_.load(std::memory_order_acquire);
  if (second > SecondOfHead(head)) head = Advance(second);
  Bucket& b = buckets_[static_cast<std::size_t>(head & ((1 << kIndexBits) - 1))];
  b.calls.fetch_add(1, kRelaxed);
  const std::int64_t calls = calls_.fetch_add(1, kRelaxed) + 1;
  const std::uint64_t delta = PackBad(call);
  if (delta == 0) return {.counts = Unpack(calls, bad_.load(kRelaxed)), .changed = true};
  b.bad.fetch_add(delta, kRelaxed);
  return {.counts = Unpack(calls, bad_.fetch_add(delta, kRelaxed) + delta), .changed = true};
}

WindowCounts TimeWindow::Counts(TimePoint now) noexcept {
  const std::int64_t second = SecondOf(now);
  if (second > SecondOfHead(head_.load(std::memory_order_acquire))) Advance(second);
  return Unpack(calls_.load(kRelaxed), bad_.load(kRelaxed));
}

void TimeWindow::Reset() noexcept {
  std::lock_guard lock(advance_mu_);
  for (int i = 0; i < size(); ++i) Retire(buckets_[static_cast<std::size_t>(i)]);
}

}  // namespace stormguard
