// stormguard/metrics/counters.h: built-in counters for every pipeline decision.
//
// CountingListener counts events per kind and per (kind, policy, reason,
// scope), with the summed durations (attempt latency, retry waits,
// overruns). Hand it to PipelineBuilder (or any policy) as the listener, or
// behind ScopedListeners to count instances apart, and read a snapshot:
//
//   CountingListener counters;
//   auto p = PipelineBuilder({.listener = &counters}).AddRetry({...}).Build();
//   ...
//   CountingListener::Snapshot s = counters.Read();
//   s.count(EventKind::kRejected, PolicyId::kCircuitBreaker);     // all reasons
//   s.count(EventKind::kGaveUp, PolicyId::kRetry, "budget_exhausted");
//   s.ForScope("payments").count(EventKind::kRejected, PolicyId::kCircuitBreaker);
//
// Increments are lock-free (relaxed atomics; a new key claims its slot with
// one compare-and-swap). The table holds `max_keys` distinct keys; events
// for keys beyond that are counted per kind and in `dropped`, not per key.
// Event strings must be static (events.h requires it) and scopes must
// outlive this listener: keys keep the views.
//
// Thread safety: OnEvent and Read may run concurrently; a snapshot is a
// consistent count per counter, not across counters.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/events.h"

namespace stormguard {

class CountingListener final : public Listener {
 public:
  explicit CountingListener(std::size_t max_keys = 256);
  ~CountingListener() override;

  void OnEvent(const Event& event) noexcept override;

  struct Row {
    EventKind kind;
    PolicyId policy;
    std::string reason;
    std::string scope;  // "" for events from no ScopedListener
    std::uint64_t count = 0;
    Duration total = Duration::zero();  // sum of the events' durations
  };

  struct Snapshot {
    std::array<std::uint64_t, kEventKindCount> by_kind{};
    std::vector<Row> rows;  // sorted by kind, policy id, reason, scope
    std::uint64_t dropped = 0;

    std::uint64_t count(EventKind kind) const noexcept { return by_kind[static_cast<std::size_t>(kind)]; }
    // Summed over every scope, and over every reason when `reason` is empty.
    std::uint64_t count(EventKind kind, PolicyId policy, std::string_view reason = {}) const noexcept;
    Duration total(EventKind kind, PolicyId policy, std::string_view reason = {}) const noexcept;
    // The rows of one scope, with by_kind summed from them (events beyond
    // max_keys, counted only per kind, belong to no scope).
    Snapshot ForScope(std::string_view scope) const;
  };

  Snapshot Read() const;

 private:
  struct Slot;
  Slot* Find(const Event& e) noexcept;

  struct alignas(64) PaddedCounter {
    std::atomic<std::uint64_t> value{0};
  };
  std::array<PaddedCounter, kEventKindCount> by_kind_;
  std::unique_ptr<Slot[]> slots_;
  std::size_t mask_;
  std::size_t max_keys_;
  std::atomic<std::size_t> used_{0};
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace stormguard
