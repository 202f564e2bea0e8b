// stormguard/sim/series.h: counters per time bucket.
//
//   sim::Series s(std::chrono::milliseconds(100), /*nodes=*/2, /*hops=*/1);
//   s.Add(s.retries[0], elapsed);          // one retry in elapsed's bucket
//   std::int64_t peak = sim::Peak(s.retries[0]);
//
// Buckets are [k * bucket, (k+1) * bucket) from the start of the run; a
// vector grows when an event lands past its end. Thread safety: none.
#pragma once

#include <cstdint>
#include <vector>

#include "stormguard/core/time.h"

namespace stormguard::sim {

using Counts = std::vector<std::int64_t>;

struct Series {
  Series() = default;
  Series(Duration bucket_width, int nodes, int hops)
      : bucket(bucket_width), arrivals(static_cast<std::size_t>(nodes)), retries(static_cast<std::size_t>(hops)) {}

  Duration bucket = std::chrono::seconds(1);
  std::vector<Counts> arrivals;  // [node][bucket]: requests reaching each node
  std::vector<Counts> retries;   // [hop][bucket]: retries sent by each hop
  Counts successes;              // client requests that succeeded, by completion time
  Counts failures;               // ... failed or were abandoned, by completion time
  Counts rejections;             // refused by a queue, an expired deadline or a budget
  Counts good_by_arrival;        // client requests that succeeded, by arrival time

  std::size_t BucketOf(Duration elapsed) const noexcept {
    return elapsed <= Duration::zero() ? 0 : static_cast<std::size_t>(elapsed / bucket);
  }
  void Add(Counts& counts, Duration elapsed, std::int64_t n = 1);
  // When bucket i starts, in seconds from the start of the run.
  double StartSeconds(std::size_t i) const noexcept {
    return static_cast<double>(bucket.count()) * static_cast<double>(i) / 1e9;
  }

  // The number of buckets of the longest vector.
  std::size_t size() const noexcept;
};

std::int64_t Peak(const Counts& c) noexcept;
std::int64_t Sum(const Counts& c) noexcept;
// The value of bucket i, zero past the end.
inline std::int64_t At(const Counts& c, std::size_t i) noexcept { return i < c.size() ? c[i] : 0; }

}  // namespace stormguard::sim
