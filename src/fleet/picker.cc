#include "stormguard/fleet/picker.h"

namespace stormguard {
namespace {

// The first endpoint after `from` (cyclically) not in `tried`, or `from`.
std::size_t FirstUntried(Endpoints endpoints, const Tried& tried, std::size_t from) {
  const std::size_t n = endpoints.size();
  for (std::size_t k = 1; k < n; ++k) {
    if (const std::size_t i = (from + k) % n; !tried.Contains(endpoints[i])) return i;
  }
  return from;
}

constexpr std::array<std::string_view, 4> kPickerNames = {"random", "round_robin", "p2c_least_outstanding",
                                                          "p2c_peak_ewma"};

}  // namespace

std::size_t RoundRobinPicker::Pick(Endpoints endpoints, const Tried& tried) noexcept {
  return Pick(endpoints, tried, ThreadLocalRandom());
}

std::size_t RoundRobinPicker::Pick(Endpoints endpoints, const Tried& tried, Random& random) noexcept {
  const std::size_t n = endpoints.size();
  Turn& turn = turns_[ThreadStripe() % kStripes];
  std::uint64_t start = turn.next.fetch_add(1, std::memory_order_relaxed);
  if (start >= kUnstarted) [[unlikely]] {
    // The stripe's first pick starts at a random point: pickers (and
    // clients) that start together would otherwise begin with the same
    // replica and move through the set in step. Two threads racing here
    // both store; the turn is off by one once.
    start = random.NextU64() >> 2;
    turn.next.store(start + 1, std::memory_order_relaxed);
  }
  const std::size_t first = static_cast<std::size_t>(start % n);
  if (tried.size() == 0 || !tried.Contains(endpoints[first])) return first;
  return FirstUntried(endpoints, tried, first);
}

std::size_t P2CPicker::Pick(Endpoints endpoints, const Tried& tried, Random& random, TimePoint now) const noexcept {
  const std::size_t n = endpoints.size();
  if (n == 1) return 0;
  // Two distinct draws; a tried endpoint is drawn again, a few times.
  const auto draw = [&](std::size_t avoid) {
    std::size_t i = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      i = static_cast<std::size_t>(random.Below(n));
      if (i != avoid && !tried.Contains(endpoints[i])) return i;
    }
    while (i == avoid) i = static_cast<std::size_t>(random.Below(n));
    return i;
  };
  const std::size_t a = draw(n);
  const bool a_tried = tried.Contains(endpoints[a]);
  if (a_tried && tried.size() < n) return FirstUntried(endpoints, tried, a);  // few left untried: scan
  const std::size_t b = draw(a);
  if (tried.Contains(endpoints[b]) && !a_tried) return a;
  if (cost_ == P2CCost::kOutstanding) return endpoints[b]->outstanding() < endpoints[a]->outstanding() ? b : a;
  return endpoints[b]->Cost(now) < endpoints[a]->Cost(now) ? b : a;
}

std::string_view PickerKindName(PickerKind kind) noexcept { return kPickerNames[static_cast<std::size_t>(kind)]; }

std::optional<PickerKind> ParsePickerKind(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kPickerNames.size(); ++i) {
    if (kPickerNames[i] == name) return static_cast<PickerKind>(i);
  }
  return std::nullopt;
}

Picker::Picker(PickerKind kind) noexcept
    : kind_(kind), p2c_(kind == PickerKind::kLeastOutstanding ? P2CCost::kOutstanding : P2CCost::kPeakEwma) {}

std::size_t Picker::Pick(Endpoints endpoints, const Tried& tried, Random& random, TimePoint now) noexcept {
  switch (kind_) {
    case PickerKind::kRoundRobin: return round_robin_.Pick(endpoints, tried, random);
    case PickerKind::kLeastOutstanding:
    case PickerKind::kPeakEwma: return p2c_.Pick(endpoints, tried, random, now);
    case PickerKind::kRandom: break;
  }
  const std::size_t n = endpoints.size();
  const std::size_t i = static_cast<std::size_t>(random.Below(n));
  return tried.Contains(endpoints[i]) ? FirstUntried(endpoints, tried, i) : i;
}

}  // namespace stormguard
