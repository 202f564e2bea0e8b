// stormguard/hedge/latency_tracker.h: live latency percentiles over a recent window.
//
// A LatencyTracker records how long calls took and answers "what is the p95
// of the last few seconds?", so a hedge can be sent when the primary is
// slower than ~95% of recent calls (The Tail at Scale: deferring the backup
// to the 95th percentile adds ~5% load for most of the tail cut).
//
//   auto tracker = LatencyTracker::Create({.window = 10s, .slices = 5}).value();
//   tracker->Record(end - start, clock.CoarseNow());
//   std::optional<Duration> p95 = tracker->Quantile(0.95, clock.CoarseNow());
//
// Shape: a ring of `slices` histograms, each covering window/slices of time;
// a query sums the slices of the last window (the current, partial slice
// included, so it sees between (slices-1)/slices and all of `window`).
// Each histogram is log-linear: exact below 16 ns, then 16 buckets per power
// of two up to 2^40 ns (~18 minutes; longer latencies count as 18 minutes).
//
// Accuracy: Quantile(q) reports the upper edge of the bucket holding the
// sample of rank ceil(q * n), so for the recorded samples it returns a
// value v with true <= v < true * (1 + 1/16): never early, at most 6.25%
// late. A Record() racing with the rotation of its slice may land in the
// newer slice; a sample whose slice was already reused is dropped.
//
// Thread safety: all methods are thread-safe. Record() is one relaxed atomic
// increment (plus, once per slice period, a short lock to clear the slice it
// rotates into). Quantile() reads slices * 592 counters; callers on a hot
// path cache its answer (HedgePolicy does).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

// The samples of some of a tracker's slices, summed: one scan answers
// several quantiles.
struct LatencySnapshot {
  std::array<std::int64_t, 592> counts{};  // per bucket (LatencyTracker::kBuckets)
  std::int64_t total = 0;

  // The q-quantile (0 < q <= 1), as LatencyTracker::Quantile; nullopt with
  // fewer than `min_samples` samples.
  std::optional<Duration> Quantile(double q, std::int64_t min_samples) const noexcept;
};

struct LatencyTrackerOptions {
  Duration window = std::chrono::seconds(10);  // how far back percentiles look
  int slices = 5;                              // the window moves in window/slices steps
  std::int64_t min_samples = 20;               // fewer in the window: no percentile

  std::vector<std::string> Validate() const;
};

class LatencyTracker {
 public:
  static constexpr int kSubBucketBits = 4;
  static constexpr int kBuckets = 592;  // 16 exact + 36 powers of two * 16
  static constexpr Duration kMaxTracked = Duration((std::int64_t{1} << 40) - 1);

  static Result<std::shared_ptr<LatencyTracker>> Create(LatencyTrackerOptions options);

  const LatencyTrackerOptions& options() const noexcept { return o_; }

  // Records one latency observed at `now` (a coarse clock reading is enough).
  void Record(Duration latency, TimePoint now) noexcept;

  // The q-quantile (0 < q <= 1) of the samples of the window ending at
  // `now`; nullopt while the window holds fewer than min_samples.
  std::optional<Duration> Quantile(double q, TimePoint now) const noexcept;

  // Samples in the window ending at `now`.
  std::int64_t Count(TimePoint now) const noexcept;

  // The window ending at `now` as one histogram; with `newest` > 0, only
  // its newest `newest` slices (the current, partial one included).
  LatencySnapshot Snapshot(TimePoint now, int newest = 0) const noexcept;

  // The histogram geometry, exposed for tests: bucket of a latency, and the
  // largest latency that bucket holds.
  static int BucketOf(Duration latency) noexcept;
  static Duration BucketUpperEdge(int bucket) noexcept;

  LatencyTracker(const LatencyTracker&) = delete;
  LatencyTracker& operator=(const LatencyTracker&) = delete;

 private:
  struct alignas(64) Slice {
    std::atomic<std::int64_t> epoch{-1};  // which slice period it holds
    std::array<std::atomic<std::uint32_t>, kBuckets> counts{};
  };

  explicit LatencyTracker(LatencyTrackerOptions o);
  std::int64_t EpochOf(TimePoint now) const noexcept;
  bool RotateInto(Slice& s, std::int64_t epoch) noexcept;
  // Adds the counts of the slices of the `newest` epochs up to `now_epoch`
  // into `sum`; returns the total.
  std::int64_t Sum(std::int64_t now_epoch, int newest, std::array<std::int64_t, kBuckets>* sum) const noexcept;

  LatencyTrackerOptions o_;
  std::int64_t slice_ns_;
  std::unique_ptr<Slice[]> slices_;
  std::mutex rotate_mu_;  // only taken when a slice period starts
};

static_assert(std::tuple_size_v<decltype(LatencySnapshot::counts)> == LatencyTracker::kBuckets);

}  // namespace stormguard
