#include "stormguard/core/rolling_counter.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// A bucket's starting point: the low 16 bits of its epoch (the tag) above
// the low 48 bits of the cumulative counter. Starts are rewritten for every
// bucket the window enters, so a slot only ever holds one of the last
// ring-size epochs and 16-bit tags never collide; counts within a window
// stay far below 2^47, so 48-bit differences are exact.
constexpr int kValueBits = 48;
constexpr std::uint64_t kValueMask = (std::uint64_t{1} << kValueBits) - 1;
constexpr std::uint64_t Tag(std::uint64_t epoch) { return epoch & 0xFFFF; }
constexpr std::uint64_t TagOf(std::uint64_t start) { return start >> kValueBits; }
constexpr std::uint64_t Pack(std::uint64_t epoch, std::uint64_t value) {
  return (Tag(epoch) << kValueBits) | (value & kValueMask);
}
// (a - b) over the low 48 bits, as a signed number.
constexpr std::int64_t Difference48(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::int64_t>((a - b) << (64 - kValueBits)) >> (64 - kValueBits);
}

static_assert(RollingCounterOptions::kMaxBuckets * 2 <= 0xFFFF, "tags must outlive the ring");

// Runs body(0), ..., body(N - 1) unrolled: GCC -O2 would keep a loop over
// the counts, with its arrays on the stack, on the hot paths.
template <std::size_t N, class Body>
void ForEachCount(Body&& body) {
  [&]<std::size_t... kWhich>(std::index_sequence<kWhich...>) { (body(kWhich), ...); }
  (std::make_index_sequence<N>{});
}

}  // namespace

std::vector<std::string> RollingCounterOptions::Validate() const {
  Validator v;
  v.Check(window > Duration::zero(), "window", "must be positive");
  v.Check(buckets >= 1 && buckets <= kMaxBuckets, "buckets", "must be in [1, 512]");
  v.Check(buckets < 1 || window.count() >= buckets, "window", "must be at least 1ns per bucket");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be in [0, 64]");
  return std::move(v).errors();
}

template <std::size_t N>
Result<BasicRollingCounter<N>> BasicRollingCounter<N>::Create(const RollingCounterOptions& options) {
  Status s = ValidationStatus("rolling counter options", options.Validate());
  if (!s.ok()) return s;
  return BasicRollingCounter(options);
}

template <std::size_t N>
BasicRollingCounter<N>::BasicRollingCounter(const RollingCounterOptions& o)
    : width_(o.window.count() / o.buckets),
      buckets_(static_cast<std::uint64_t>(o.buckets)),
      ring_mask_(std::bit_ceil(static_cast<std::uint64_t>(o.buckets)) - 1),
      stripe_mask_(static_cast<std::size_t>(ResolveStripes(o.stripes)) - 1),
      newest_(new Newest),
      counters_(new Counters[stripe_mask_ + 1]),
      starts_(new std::atomic<std::uint64_t>[(stripe_mask_ + 1) * (ring_mask_ + 1) * N]()) {}

// `now`'s bucket number. Nearly always it is the newest bucket, which a
// multiply confirms; only other times pay for a division.
template <std::size_t N>
std::uint64_t BasicRollingCounter<N>::EpochOf(TimePoint now, std::uint64_t newest) const noexcept {
  const std::int64_t ns = now.time_since_epoch().count();
  if (ns <= 0) return 0;
  const auto width = static_cast<std::uint64_t>(width_);
  const auto offset = static_cast<std::uint64_t>(ns) - newest * width;  // wraps if ns is older
  if (offset < width) return newest;
  return static_cast<std::uint64_t>(ns) / width;
}

template <std::size_t N>
bool BasicRollingCounter<N>::Add(TimePoint now, Amounts amounts) noexcept {
  std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  const std::uint64_t epoch = EpochOf(now, last);
  if (epoch > last) last = Advance(epoch);
  if (last - epoch >= buckets_) return false;  // already outside the window
  Counters& c = counters_[ThreadStripe() & stripe_mask_];
  // Negative amounts wrap around; the differences Sum takes undo that.
  ForEachCount<N>([&](std::size_t which) {
    if (amounts[which] != 0) StripedAdd(c.count[which], static_cast<std::uint64_t>(amounts[which]));
  });
  return true;
}

// Publishes `epoch` as the newest bucket, unless a newer one already is,
// and returns the newest. One thread at a time records starting points, and
// only for buckets nobody has published, so a start is never rewritten
// after events landed in its bucket. Starting points are recorded before
// publishing, so whoever sees the bucket also finds them. Nothing happened
// in the buckets skipped, so they all start where the counters stand (only
// the last ring-size of them have a slot).
template <std::size_t N>
std::uint64_t BasicRollingCounter<N>::Advance(std::uint64_t epoch) noexcept {
  std::lock_guard lock(newest_->opening);
  const std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  if (last >= epoch) return last;
  RecordStarts(epoch - last > ring_mask_ ? epoch - ring_mask_ : last + 1, epoch);
  newest_->epoch.store(epoch, std::memory_order_release);
  return epoch;
}

// Buckets first..last start where the counters stand now.
template <std::size_t N>
void BasicRollingCounter<N>::RecordStarts(std::uint64_t first, std::uint64_t last) noexcept {
  for (std::size_t s = 0; s <= stripe_mask_; ++s) {
    for (std::size_t which = 0; which < N; ++which) {
      const std::uint64_t value = counters_[s].count[which].load(std::memory_order_seq_cst);
      for (std::uint64_t e = first; e <= last; ++e) {
        start(s, e, which).store(Pack(e, value), std::memory_order_release);
      }
    }
  }
}

// Every bucket a window can still reach starts again from here.
template <std::size_t N>
void BasicRollingCounter<N>::Reset() noexcept {
  std::lock_guard lock(newest_->opening);
  const std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  RecordStarts(last > ring_mask_ ? last - ring_mask_ : 0, last);
}

// What stripe `stripe` counted in the window ending at `epoch`.
template <std::size_t N>
auto BasicRollingCounter<N>::StripeCounts(std::size_t stripe, std::uint64_t epoch, std::uint64_t last) const noexcept
    -> Counts {
  std::array<std::uint64_t, N> upper;
  ForEachCount<N>([&](std::size_t which) {
    upper[which] = counters_[stripe].count[which].load(std::memory_order_seq_cst);
    if (epoch >= last) return;
    // A reader behind the newest bucket stops where epoch + 1 began.
    const std::uint64_t end = start(stripe, epoch + 1, which).load(std::memory_order_acquire);
    if (TagOf(end) == Tag(epoch + 1)) upper[which] = end;
  });
  // Normally the oldest bucket's start is there; a thread stalled while
  // recording starts may have overwritten it, and then the window counts
  // from the oldest bucket that still has one.
  const std::uint64_t oldest = epoch + 1 >= buckets_ ? epoch + 1 - buckets_ : 0;
  for (std::uint64_t e = oldest; e <= epoch && e <= last; ++e) {
    Counts counts;
    bool stamped = true;
    ForEachCount<N>([&](std::size_t which) {
      const std::uint64_t from = start(stripe, e, which).load(std::memory_order_acquire);
      stamped &= TagOf(from) == Tag(e);
      counts[which] = Difference48(upper[which], from);
    });
    if (stamped) return counts;
  }
  return {};
}

template <std::size_t N>
auto BasicRollingCounter<N>::Sum(TimePoint now) const noexcept -> Counts {
  const std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  const std::uint64_t epoch = EpochOf(now, last);
  // Nothing added this recently, or asking about buckets already reused.
  if (epoch >= last + buckets_ || epoch + ring_mask_ < last) return {};
  Counts sum{};
  for (std::size_t s = 0; s <= stripe_mask_; ++s) {
    const Counts c = StripeCounts(s, epoch, last);
    ForEachCount<N>([&](std::size_t which) { sum[which] += c[which]; });
  }
  // A take-back that raced a bucket start can leave a bucket below zero.
  ForEachCount<N>([&](std::size_t which) { sum[which] = std::max<std::int64_t>(sum[which], 0); });
  return sum;
}

template class BasicRollingCounter<2>;
template class BasicRollingCounter<3>;

}  // namespace stormguard
