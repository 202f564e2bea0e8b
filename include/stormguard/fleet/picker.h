// stormguard/fleet/picker.h: which replica the next attempt goes to.
//
// Two pickers over one set of EndpointLoads:
//   - RoundRobinPicker: each in turn (one shared atomic counter);
//   - P2CPicker: the cheaper of two distinct endpoints drawn at random
//     (power of two choices by EndpointLoad::Cost), which routes around a
//     slow or busy replica without scanning the set.
// Both skip the endpoints in `tried` (the ones this call's earlier attempts
// went to), so a retry or a hedge goes to another replica while one exists;
// when every endpoint has been tried they pick among all of them.
//
//   Tried tried;
//   std::size_t i = picker.Pick(endpoints, tried, ThreadLocalRandom());
//   tried.Add(i);   // a retry of this call will go elsewhere
//
// Thread safety: Pick may run concurrently; no locks, no allocation.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>

#include "stormguard/core/random.h"
#include "stormguard/fleet/endpoint_load.h"

namespace stormguard {

// The endpoints a call has tried, up to kMax (later ones are not kept: a
// call rarely makes more attempts than that).
class Tried {
 public:
  static constexpr std::size_t kMax = 8;
  void Add(std::size_t i) noexcept {
    if (size_ < kMax) items_[size_++] = static_cast<std::uint32_t>(i);
  }
  bool Contains(std::size_t i) const noexcept {
    for (std::size_t k = 0; k < size_; ++k) {
      if (items_[k] == i) return true;
    }
    return false;
  }
  std::size_t size() const noexcept { return size_; }

 private:
  std::array<std::uint32_t, kMax> items_{};
  std::size_t size_ = 0;
};

using Endpoints = std::span<EndpointLoad* const>;

class RoundRobinPicker {
 public:
  // An index into `endpoints` (which must not be empty).
  std::size_t Pick(Endpoints endpoints, const Tried& tried = {}) noexcept;

 private:
  std::atomic<std::uint64_t> next_{0};
};

class P2CPicker {
 public:
  // An index into `endpoints` (which must not be empty).
  std::size_t Pick(Endpoints endpoints, const Tried& tried, Random& random) const noexcept;
};

}  // namespace stormguard
