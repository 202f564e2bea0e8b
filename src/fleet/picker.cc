#include "stormguard/fleet/picker.h"

namespace stormguard {
namespace {

// The first endpoint after `from` (cyclically) not in `tried`, or `from`.
std::size_t FirstUntried(std::size_t n, const Tried& tried, std::size_t from) {
  for (std::size_t k = 1; k < n; ++k) {
    if (const std::size_t i = (from + k) % n; !tried.Contains(i)) return i;
  }
  return from;
}

}  // namespace

std::size_t RoundRobinPicker::Pick(Endpoints endpoints, const Tried& tried) noexcept {
  const std::size_t n = endpoints.size();
  const std::uint64_t start = next_.fetch_add(1, std::memory_order_relaxed);
  if (tried.size() == 0) return static_cast<std::size_t>(start % n);
  for (std::size_t k = 0; k < n; ++k) {  // the next one not tried yet
    const std::size_t i = static_cast<std::size_t>((start + k) % n);
    if (!tried.Contains(i)) return i;
  }
  return static_cast<std::size_t>(start % n);  // all tried: any
}

std::size_t P2CPicker::Pick(Endpoints endpoints, const Tried& tried, Random& random) const noexcept {
  const std::size_t n = endpoints.size();
  if (n == 1) return 0;
  // Two distinct draws; a tried endpoint is drawn again, a few times.
  const auto draw = [&](std::size_t avoid) {
    std::size_t i = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      i = static_cast<std::size_t>(random.Below(n));
      if (i != avoid && !tried.Contains(i)) return i;
    }
    while (i == avoid) i = static_cast<std::size_t>(random.Below(n));
    return i;
  };
  const std::size_t a = draw(n);
  const bool a_tried = tried.Contains(a);
  if (a_tried && tried.size() < n) return FirstUntried(n, tried, a);  // few left untried: scan
  const std::size_t b = draw(a);
  if (tried.Contains(b) && !a_tried) return a;
  return endpoints[b]->Cost() < endpoints[a]->Cost() ? b : a;
}

}  // namespace stormguard
