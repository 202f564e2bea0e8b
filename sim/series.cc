#include "stormguard/sim/series.h"

#include <algorithm>
#include <numeric>

namespace stormguard::sim {

void Series::Add(Counts& counts, Duration elapsed, std::int64_t n) {
  const std::size_t i = BucketOf(elapsed);
  if (i >= counts.size()) counts.resize(i + 1, 0);
  counts[i] += n;
}

std::size_t Series::size() const noexcept {
  std::size_t n = std::max({successes.size(), failures.size(), rejections.size(), good_by_arrival.size()});
  for (const Counts& c : arrivals) n = std::max(n, c.size());
  for (const Counts& c : retries) n = std::max(n, c.size());
  return n;
}

std::int64_t Peak(const Counts& c) noexcept { return c.empty() ? 0 : *std::max_element(c.begin(), c.end()); }

std::int64_t Sum(const Counts& c) noexcept { return std::accumulate(c.begin(), c.end(), std::int64_t{0}); }

}  // namespace stormguard::sim
