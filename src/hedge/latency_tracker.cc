#include "stormguard/hedge/latency_tracker.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

constexpr int kSub = 1 << LatencyTracker::kSubBucketBits;  // buckets per power of two

}  // namespace

std::vector<std::string> LatencyTrackerOptions::Validate() const {
  Validator v;
  v.Check(slices >= 2 && slices <= 64, "slices", "must be between 2 and 64");
  v.Check(window > Duration::zero(), "window", "must be positive");
  v.Check(slices < 2 || window >= Duration(slices), "window", "must hold at least 1 ns per slice");
  v.Check(min_samples >= 1, "min_samples", "must be at least 1");
  return std::move(v).errors();
}

Result<std::shared_ptr<LatencyTracker>> LatencyTracker::Create(LatencyTrackerOptions options) {
  Status s = ValidationStatus("latency tracker options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<LatencyTracker>(new LatencyTracker(std::move(options)));
}

LatencyTracker::LatencyTracker(LatencyTrackerOptions o)
    : o_(std::move(o)),
      slice_ns_(o_.window.count() / o_.slices),
      slices_(std::make_unique<Slice[]>(static_cast<std::size_t>(o_.slices))) {}

int LatencyTracker::BucketOf(Duration latency) noexcept {
  const std::int64_t ns = std::clamp(latency.count(), std::int64_t{0}, kMaxTracked.count());
  const auto v = static_cast<std::uint64_t>(ns);
  if (v < kSub) return static_cast<int>(v);
  // Log-linear: the power of two picks the group, the next 4 bits the
  // sub-bucket, so each bucket is at most 1/16 of its lower edge wide.
  const int exp = std::bit_width(v) - 1;
  const int sub = static_cast<int>((v >> (exp - kSubBucketBits)) & (kSub - 1));
  return (exp - kSubBucketBits + 1) * kSub + sub;
}

Duration LatencyTracker::BucketUpperEdge(int bucket) noexcept {
  if (bucket < kSub) return Duration(bucket);
  const int exp = bucket / kSub + kSubBucketBits - 1;
  const std::int64_t width = std::int64_t{1} << (exp - kSubBucketBits);
  const std::int64_t lower = (kSub + bucket % kSub) * width;
  return Duration(lower + width - 1);
}

std::int64_t LatencyTracker::EpochOf(TimePoint now) const noexcept {
  const std::int64_t ns = now.time_since_epoch().count();
  return ns <= 0 ? 0 : ns / slice_ns_;
}

bool LatencyTracker::RotateInto(Slice& s, std::int64_t epoch) noexcept {
  std::lock_guard lock(rotate_mu_);
  const std::int64_t held = s.epoch.load(std::memory_order_relaxed);
  if (held > epoch) return false;  // the slice moved on: this sample is too old
  if (held < epoch) {
    for (auto& c : s.counts) c.store(0, std::memory_order_relaxed);
    s.epoch.store(epoch, std::memory_order_release);
  }
  return true;
}

void LatencyTracker::Record(Duration latency, TimePoint now) noexcept {
  const std::int64_t epoch = EpochOf(now);
  Slice& s = slices_[static_cast<std::size_t>(epoch % o_.slices)];
  if (s.epoch.load(std::memory_order_acquire) != epoch && !RotateInto(s, epoch)) return;
  s.counts[static_cast<std::size_t>(BucketOf(latency))].fetch_add(1, std::memory_order_relaxed);
}

std::int64_t LatencyTracker::Sum(std::int64_t now_epoch, int newest,
                                 std::array<std::int64_t, kBuckets>* sum) const noexcept {
  std::int64_t total = 0;
  for (int i = 0; i < o_.slices; ++i) {
    const Slice& s = slices_[static_cast<std::size_t>(i)];
    const std::int64_t e = s.epoch.load(std::memory_order_acquire);
    if (e > now_epoch || e <= now_epoch - newest) continue;  // outside the window
    for (int b = 0; b < kBuckets; ++b) {
      const std::int64_t n = s.counts[static_cast<std::size_t>(b)].load(std::memory_order_relaxed);
      total += n;
      if (sum != nullptr) (*sum)[static_cast<std::size_t>(b)] += n;
    }
  }
  return total;
}

std::int64_t LatencyTracker::Count(TimePoint now) const noexcept { return Sum(EpochOf(now), o_.slices, nullptr); }

LatencySnapshot LatencyTracker::Snapshot(TimePoint now, int newest) const noexcept {
  LatencySnapshot out;
  const int slices = newest > 0 ? std::min(newest, o_.slices) : o_.slices;
  out.total = Sum(EpochOf(now), slices, &out.counts);
  return out;
}

std::optional<Duration> LatencyTracker::Quantile(double q, TimePoint now) const noexcept {
  return Snapshot(now).Quantile(q, o_.min_samples);
}

std::optional<Duration> LatencySnapshot::Quantile(double q, std::int64_t min_samples) const noexcept {
  if (!(q > 0.0 && q <= 1.0) || total < std::max<std::int64_t>(min_samples, 1)) return std::nullopt;
  // The sample of rank ceil(q * n); the epsilon keeps 0.95 * 100 from
  // becoming rank 96 through rounding.
  const auto rank =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(q * static_cast<double>(total) - 1e-9)));
  std::int64_t seen = 0;
  for (int b = 0; b < LatencyTracker::kBuckets; ++b) {
    seen += counts[static_cast<std::size_t>(b)];
    if (seen >= rank) return LatencyTracker::BucketUpperEdge(b);
  }
  return LatencyTracker::BucketUpperEdge(LatencyTracker::kBuckets - 1);
}

}  // namespace stormguard
