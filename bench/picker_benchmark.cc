// Cost of one pick among 100 endpoints, against a bare atomic round robin
// (an index from one shared counter) in the same run; 1 and 2 threads.
#include <benchmark/benchmark.h>

#include <atomic>
#include <memory>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/fleet/picker.h"
#include "stormguard/fleet/replica_set.h"

namespace stormguard::bench {
namespace {

constexpr std::size_t kEndpoints = 100;
const TimePoint kAnswered = TimePoint(std::chrono::hours(1));
const TimePoint kPickedAt = kAnswered + std::chrono::milliseconds(300);

struct PickerFleet {
  PickerFleet() {
    for (std::size_t i = 0; i < kEndpoints; ++i) {
      owned.push_back(std::make_unique<EndpointLoad>(EndpointLoadOptions{
          .initial_latency = std::chrono::microseconds(500 + static_cast<int>(i) * 10)}));
    }
    for (auto& e : owned) {
      e->Start();  // an answer each, so every cost read decays the average (the common path)
      e->End(std::chrono::microseconds(700), kAnswered);
      view.push_back(e.get());
    }
  }
  std::vector<std::unique_ptr<EndpointLoad>> owned;
  std::vector<EndpointLoad*> view;
};

PickerFleet& SharedFleet() {
  static PickerFleet fleet;
  return fleet;
}

std::atomic<std::uint64_t> g_bare_next{0};

void BM_Picker_BareAtomicRoundRobin(benchmark::State& state) {
  const std::size_t n = SharedFleet().view.size();
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_bare_next.fetch_add(1, std::memory_order_relaxed) % n);
  }
}
BENCHMARK(BM_Picker_BareAtomicRoundRobin);
BENCHMARK(BM_Picker_BareAtomicRoundRobin)->Threads(2);

RoundRobinPicker g_round_robin;

void BM_Picker_RoundRobin(benchmark::State& state) {
  const Endpoints endpoints = SharedFleet().view;
  for (auto _ : state) benchmark::DoNotOptimize(g_round_robin.Pick(endpoints));
}
BENCHMARK(BM_Picker_RoundRobin);
BENCHMARK(BM_Picker_RoundRobin)->Threads(2);

void BM_Picker_P2C(benchmark::State& state) {
  const Endpoints endpoints = SharedFleet().view;
  const P2CPicker picker;
  Random& random = ThreadLocalRandom();
  for (auto _ : state) benchmark::DoNotOptimize(picker.Pick(endpoints, {}, random, kPickedAt));
}
BENCHMARK(BM_Picker_P2C);
BENCHMARK(BM_Picker_P2C)->Threads(2);

// A pick, then the call's start and end on the picked endpoint: what a
// client pays per attempt for latency-aware balancing.
void BM_Picker_P2C_WithLoadUpdates(benchmark::State& state) {
  const Endpoints endpoints = SharedFleet().view;
  const P2CPicker picker;
  Random& random = ThreadLocalRandom();
  const TimePoint now = kPickedAt;
  for (auto _ : state) {
    EndpointLoad& e = *endpoints[picker.Pick(endpoints, {}, random, now)];
    e.Start();
    e.End(std::chrono::microseconds(700), now);
  }
}
BENCHMARK(BM_Picker_P2C_WithLoadUpdates);
BENCHMARK(BM_Picker_P2C_WithLoadUpdates)->Threads(2);

void BM_Picker_LeastOutstanding(benchmark::State& state) {
  const Endpoints endpoints = SharedFleet().view;
  const P2CPicker picker(P2CCost::kOutstanding);
  Random& random = ThreadLocalRandom();
  for (auto _ : state) benchmark::DoNotOptimize(picker.Pick(endpoints, {}, random, kPickedAt));
}
BENCHMARK(BM_Picker_LeastOutstanding);
BENCHMARK(BM_Picker_LeastOutstanding)->Threads(2);

// What a client pays per attempt through a ReplicaSet: the members from
// the thread's cache, a P2C pick, Start, and the report (latency, outlier
// books) of a success.
void BM_Picker_ReplicaSet_PickAndReport(benchmark::State& state) {
  static ReplicaSet* set = [] {
    std::vector<EndpointSpec> endpoints;
    for (std::size_t i = 0; i < kEndpoints; ++i) endpoints.push_back({"10.0." + std::to_string(i) + ".1:80"});
    return ReplicaSet::Create({}, endpoints).value().release();
  }();
  Random& random = ThreadLocalRandom();
  const TimePoint now = Clock::Real().Now();
  for (auto _ : state) {
    Tried tried;
    PickedEndpoint e = set->Pick(now, tried, random);
    set->Report(e, OutcomeClass::kSuccess, now);
  }
}
BENCHMARK(BM_Picker_ReplicaSet_PickAndReport);
BENCHMARK(BM_Picker_ReplicaSet_PickAndReport)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
