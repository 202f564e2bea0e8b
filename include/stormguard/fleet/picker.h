// stormguard/fleet/picker.h: which replica the next attempt goes to.
//
// Pickers over one set of EndpointLoads:
//   - random: any, uniformly (the baseline);
//   - round robin: each in turn; each thread stripe keeps its own turn,
//     from a random starting point, so threads do not fight over one
//     counter and clients that start together do not move in step;
//   - power of two choices: the cheaper of two distinct endpoints drawn at
//     random, by outstanding calls alone (least outstanding) or by
//     EndpointLoad::Cost (peak EWMA latency x outstanding), which routes
//     around a slow or busy replica without scanning the set.
// All skip the endpoints in `tried` (the ones this call's earlier attempts
// went to), so a retry or a hedge goes to another replica while one exists;
// when every endpoint has been tried they pick among all of them.
//
//   Picker picker(PickerKind::kPeakEwma);
//   Tried tried;
//   std::size_t i = picker.Pick(endpoints, tried, ThreadLocalRandom(), clock.Now());
//   tried.Add(endpoints[i]);   // a retry of this call will go elsewhere
//
// Thread safety: Pick may run concurrently; no locks, no allocation.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "stormguard/core/random.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/fleet/endpoint_load.h"

namespace stormguard {

// The endpoints a call has tried, by identity, up to kMax (later ones are
// not kept: a call rarely makes more attempts than that).
class Tried {
 public:
  static constexpr std::size_t kMax = 8;
  void Add(const EndpointLoad* e) noexcept {
    if (size_ < kMax) items_[size_++] = e;
  }
  bool Contains(const EndpointLoad* e) const noexcept {
    for (std::size_t k = 0; k < size_; ++k) {
      if (items_[k] == e) return true;
    }
    return false;
  }
  std::size_t size() const noexcept { return size_; }

 private:
  std::array<const EndpointLoad*, kMax> items_{};
  std::size_t size_ = 0;
};

using Endpoints = std::span<EndpointLoad* const>;

class RoundRobinPicker {
 public:
  // An index into `endpoints` (which must not be empty). `random` draws
  // where each stripe's turn starts, on its first pick.
  std::size_t Pick(Endpoints endpoints, const Tried& tried, Random& random) noexcept;
  std::size_t Pick(Endpoints endpoints, const Tried& tried = {}) noexcept;  // with ThreadLocalRandom()

 private:
  static constexpr std::size_t kStripes = kAutoStripeLimit;
  static constexpr std::uint64_t kUnstarted = std::uint64_t{1} << 63;
  struct alignas(kCacheLineSize) Turn {
    std::atomic<std::uint64_t> next{kUnstarted};
  };
  std::array<Turn, kStripes> turns_;
};

enum class P2CCost : std::uint8_t {
  kOutstanding,  // fewer calls in flight wins
  kPeakEwma,     // EndpointLoad::Cost: latency x (outstanding + 1) / weight
};

class P2CPicker {
 public:
  explicit P2CPicker(P2CCost cost = P2CCost::kPeakEwma) noexcept : cost_(cost) {}
  // An index into `endpoints` (which must not be empty); costs as of `now`.
  std::size_t Pick(Endpoints endpoints, const Tried& tried, Random& random, TimePoint now) const noexcept;

 private:
  P2CCost cost_;
};

enum class PickerKind : std::uint8_t { kRandom, kRoundRobin, kLeastOutstanding, kPeakEwma };

// "random", "round_robin", "p2c_least_outstanding", "p2c_peak_ewma".
std::string_view PickerKindName(PickerKind kind) noexcept;
std::optional<PickerKind> ParsePickerKind(std::string_view name) noexcept;

// One of the pickers above, chosen at run time (by configuration).
class Picker {
 public:
  explicit Picker(PickerKind kind = PickerKind::kPeakEwma) noexcept;
  PickerKind kind() const noexcept { return kind_; }
  // An index into `endpoints` (which must not be empty), at `now`.
  std::size_t Pick(Endpoints endpoints, const Tried& tried, Random& random, TimePoint now) noexcept;

 private:
  PickerKind kind_;
  P2CPicker p2c_;
  RoundRobinPicker round_robin_;
};

}  // namespace stormguard
