// A fleet of GlobalRateLimiters on one ManualClock and one in-process store,
// driven step by step: each instance tries its demand's calls, spread evenly,
// and refreshes on its own schedule.
#pragma once

#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/fleet/global_rate_limiter.h"
#include "stormguard/fleet/lease_store.h"

namespace stormguard::global_limit_test {

using namespace std::chrono_literals;

// A store whose faults a test switches on: errors, or a fixed (hostile) answer.
class FaultyStore final : public LeaseStore {
 public:
  explicit FaultyStore(std::shared_ptr<LeaseStore> inner) : inner_(std::move(inner)) {}
  Result<Lease> Refresh(std::string_view id, double demand, TimePoint now) override {
    calls.fetch_add(1);
    if (!fault.ok()) return fault;
    if (forced) return *forced;
    return inner_->Refresh(id, demand, now);
  }
  Status fault;
  std::optional<Lease> forced;
  std::atomic<int> calls{0};

 private:
  std::shared_ptr<LeaseStore> inner_;
};

struct Fleet {
  Fleet(double limit, std::vector<double> demands, Listener* listener = nullptr)
      : memory(std::make_shared<InMemoryLeaseStore>(limit, 4s)),
        store(std::make_shared<FaultyStore>(memory)),
        demand(std::move(demands)) {
    for (std::size_t i = 0; i < demand.size(); ++i) {
      limiters.push_back(GlobalRateLimiter::Create({.name = "fleet_test",
                                                    .instance_id = "i" + std::to_string(i),
                                                    .limit = limit,
                                                    .burst = 36,
                                                    .refresh_interval = 1s,
                                                    .lease_length = 4s,
                                                    .listener = listener,
                                                    .clock = &clock},
                                                   store)
                             .value());
      // Staggered refreshes, as real instances started at different times.
      next_refresh.push_back(clock.Now() + 100ms * static_cast<int>(i));
      owed.push_back(0);
      admitted.push_back(0);
    }
  }

  // Runs `d` in 10 ms steps; admitted[] counts this run's admissions.
  void Run(Duration d) {
    std::fill(admitted.begin(), admitted.end(), 0);
    const TimePoint end = clock.Now() + d;
    while (clock.Now() < end) {
      clock.Advance(10ms);
      for (std::size_t i = 0; i < limiters.size(); ++i) Step(i);
    }
  }

  void Step(std::size_t i) {
    const TimePoint now = clock.Now();
    if (now >= next_refresh[i]) {
      (void)limiters[i]->RefreshOnce();
      next_refresh[i] += 1s;
    }
    owed[i] += demand[i] * 0.01;
    for (; owed[i] >= 1; owed[i] -= 1) admitted[i] += limiters[i]->TryTake(now) ? 1 : 0;
  }

  ManualClock clock;
  std::shared_ptr<InMemoryLeaseStore> memory;
  std::shared_ptr<FaultyStore> store;
  std::vector<double> demand;
  std::vector<std::unique_ptr<GlobalRateLimiter>> limiters;
  std::vector<TimePoint> next_refresh;
  std::vector<double> owed;
  std::vector<std::int64_t> admitted;
};

}  // namespace stormguard::global_limit_test
