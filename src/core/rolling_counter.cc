#include "stormguard/core/rolling_counter.h"

#include <algorithm>
#include <bit>
#include <ostream>

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

static_assert(RollingCounter::kMaxBuckets * 2 <= 0xFFFF, "tags must outlive the ring");

}  // namespace

std::ostream& operator<<(std::ostream& os, const RollingCounts& c) {
  return os << "{" << c.first << ", " << c.second << "}";
}

std::vector<std::string> RollingCounterOptions::Validate() const {
  Validator v;
  v.Check(window > Duration::zero(), "window", "must be positive");
  v.Check(buckets >= 1 && buckets <= RollingCounter::kMaxBuckets, "buckets", "must be in [1, 512]");
  v.Check(buckets < 1 || window.count() >= buckets, "window", "must be at least 1ns per bucket");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be in [0, 64]");
  return std::move(v).errors();
}

Result<RollingCounter> RollingCounter::Create(const RollingCounterOptions& options) {
  Status s = ValidationStatus("rolling counter options", options.Validate());
  if (!s.ok()) return s;
  return RollingCounter(options);
}

RollingCounter::RollingCounter(const RollingCounterOptions& o)
    : width_(o.window.count() / o.buckets),
      buckets_(static_cast<std::uint64_t>(o.buckets)),
      ring_mask_(std::bit_ceil(static_cast<std::uint64_t>(o.buckets)) - 1),
      stripe_mask_(static_cast<std::size_t>(ResolveStripes(o.stripes)) - 1),
      newest_(new Newest),
      counters_(new Counters[stripe_mask_ + 1]),
      starts_(new std::atomic<std::uint64_t>[(stripe_mask_ + 1) * (ring_mask_ + 1) * 2]()) {}

// `now`'s bucket number. Nearly always it is the newest bucket, which a
// multiply confirms; only other times pay for a division.
std::uint64_t RollingCounter::EpochOf(TimePoint now, std::uint64_t newest) const noexcept {
  const std::int64_t ns = now.time_since_epoch().count();
  if (ns <= 0) return 0;
  const auto width = static_cast<std::uint64_t>(width_);
  const auto offset = static_cast<std::uint64_t>(ns) - newest * width;  // wraps if ns is older
  if (offset < width) return newest;
  return static_cast<std::uint64_t>(ns) / width;
}

bool RollingCounter::Add(TimePoint now, int first, int second) noexcept {
  std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  const std::uint64_t epoch = EpochOf(now, last);
  if (epoch > last) last = Advance(last, epoch);
  if (last - epoch >= buckets_) return false;  // already outside the window
  Counters& c = counters_[ThreadStripe() & stripe_mask_];
  // Negative amounts wrap around; the differences Sum takes undo that.
  if (first != 0) StripedAdd(c.count[0], static_cast<std::uint64_t>(first));
  if (second != 0) StripedAdd(c.count[1], static_cast<std::uint64_t>(second));
  return true;
}

// Publishes `epoch` as the newest bucket, unless another thread already
// published a newer one, and returns the newest. Starting points are
// recorded before publishing, so whoever sees the bucket also finds them.
std::uint64_t RollingCounter::Advance(std::uint64_t last, std::uint64_t epoch) noexcept {
  while (last < epoch) {
    RecordStarts(last, epoch);
    if (newest_->epoch.compare_exchange_strong(last, epoch, std::memory_order_acq_rel,
                                               std::memory_order_acquire)) {
      return epoch;
    }
  }
  return last;
}

// Buckets in (after, through] begin now: nothing happened in the skipped
// ones, so they all start where the counters stand.
void RollingCounter::RecordStarts(std::uint64_t after, std::uint64_t through) noexcept {
  const std::uint64_t begin = through - after > ring_mask_ ? through - ring_mask_ : after + 1;
  for (std::size_t s = 0; s <= stripe_mask_; ++s) {
    for (int which = 0; which < 2; ++which) {
      const std::uint64_t value = counters_[s].count[which].load(std::memory_order_seq_cst);
      for (std::uint64_t e = begin; e <= through; ++e) {
        start(s, e, which).store(Pack(e, value), std::memory_order_release);
      }
    }
  }
}

// What stripe `stripe` counted in the window ending at `epoch`.
RollingCounts RollingCounter::StripeCounts(std::size_t stripe, std::uint64_t epoch,
                                         std::uint64_t last) const noexcept {
  std::uint64_t upper[2] = {counters_[stripe].count[0].load(std::memory_order_seq_cst),
                            counters_[stripe].count[1].load(std::memory_order_seq_cst)};
  if (epoch < last) {  // a reader behind the newest bucket stops where epoch + 1 began
    for (int which = 0; which < 2; ++which) {
      const std::uint64_t end = start(stripe, epoch + 1, which).load(std::memory_order_acquire);
      if (TagOf(end) == Tag(epoch + 1)) upper[which] = end;
    }
  }
  // Normally the oldest bucket's start is there; a thread stalled while
  // recording starts may have overwritten it, and then the window counts
  // from the oldest bucket that still has one.
  const std::uint64_t oldest = epoch + 1 >= buckets_ ? epoch + 1 - buckets_ : 0;
  for (std::uint64_t e = oldest; e <= epoch && e <= last; ++e) {
    const std::uint64_t first = start(stripe, e, 0).load(std::memory_order_acquire);
    const std::uint64_t second = start(stripe, e, 1).load(std::memory_order_acquire);
    if (TagOf(first) == Tag(e) && TagOf(second) == Tag(e)) {
      return {Difference48(upper[0], first), Difference48(upper[1], second)};
    }
  }
  return {};
}

RollingCounts RollingCounter::Sum(TimePoint now) const noexcept {
  const std::uint64_t last = newest_->epoch.load(std::memory_order_acquire);
  const std::uint64_t epoch = EpochOf(now, last);
  // Nothing added this recently, or asking about buckets already reused.
  if (epoch >= last + buckets_ || epoch + ring_mask_ < last) return {};
  RollingCounts sum;
  for (std::size_t s = 0; s <= stripe_mask_; ++s) {
    const RollingCounts c = StripeCounts(s, epoch, last);
    sum.first += c.first;
    sum.second += c.second;
  }
  // A take-back that raced a bucket start can leave a bucket below zero.
  sum.first = std::max<std::int64_t>(sum.first, 0);
  sum.second = std::max<std::int64_t>(sum.second, 0);
  return sum;
}

}  // namespace stormguard
