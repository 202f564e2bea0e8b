// The process's registered metric families (internal): what each counts,
// and where its series sit among an instance's registered cells.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string_view>

#include "stormguard/metrics/metric_family.h"

namespace stormguard::metrics_internal {

struct RegisteredFamily {
  MetricFamily family;
  std::uint32_t kinds = 0;  // bit k: EventKind k feeds it
  int first_cell = 0;       // its series' cells, from here
  int cells = 0;            // a state counter's one per state; else one
};

// Registration locks; readers (recording, scrapes) take no lock: a family
// is published by a release store of the count, after its slot.
class FamilyRegistry {
 public:
  static FamilyRegistry& Get();

  Status Register(std::span<const MetricFamily> families);

  // The kinds that feed some family of `policy` (bit k: EventKind k); zero
  // for a policy with none, the only question most events ask.
  std::uint32_t KindsOf(PolicyId policy) const noexcept {
    const int p = PolicyIndex(policy);
    return p < 0 ? 0 : kinds_[static_cast<std::size_t>(p)].load(std::memory_order_acquire);
  }
  int count() const noexcept { return count_.load(std::memory_order_acquire); }
  const RegisteredFamily& at(int i) const noexcept {
    return *slots_[static_cast<std::size_t>(i)].load(std::memory_order_acquire);
  }

 private:
  // Under mu_.
  const MetricFamily* Named(std::string_view name) const noexcept;
  void Add(const MetricFamily& f);

  std::mutex mu_;
  std::deque<RegisteredFamily> kept_;  // a deque: adding never moves one
  std::array<std::atomic<const RegisteredFamily*>, kMaxMetricFamilies> slots_{};
  std::atomic<int> count_{0};
  int cells_ = 0;  // under mu_
  std::array<std::atomic<std::uint32_t>, kPolicyIndexCount> kinds_{};
};

// The families MetricsListener renders itself; a registered one may not
// take their names.
bool IsBuiltInFamily(std::string_view name) noexcept;

}  // namespace stormguard::metrics_internal
