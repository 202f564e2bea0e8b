#include "chaos_load.h"

#include <algorithm>
#include <cstdio>

#include "demo/caller.h"
#include "demo/summary.h"
#include "stormguard/core/clock.h"

namespace stormguard::demo::chaos {
namespace {
using namespace std::chrono_literals;

// The load's first operation is due this long after the constructor returns.
constexpr Duration kLead = 100ms;

double Rate(std::uint64_t ok, std::uint64_t n) { return n == 0 ? 0 : static_cast<double>(ok) / static_cast<double>(n); }

}  // namespace

SteadyLoad::SteadyLoad(int entry_port, LoadShape shape) : shape_(shape), start_(Clock::Real().Now() + kLead) {
  thread_ = std::jthread([this, entry_port] {
    const std::unique_ptr<Caller> caller = MakeCaller(Mode::kStormguard, NextHop::kRelay);
    const std::string base = "http://127.0.0.1:" + std::to_string(entry_port);
    const LoadPlan plan{.rate = shape_.rate, .phases = {{"chaos", end()}}, .seed = 1, .start = start_};
    const SendFn send = [&](const Operation& op) {
      CallContext root{.deadline = Deadline::At(op.due + kEntryBudget)};
      if (op.charge) root.idempotency_key = "charge-" + std::to_string(op.id);
      const http::HttpRequest request{.method = op.charge ? "POST" : "GET",
                                      .url = base + (op.charge ? "/charge" : "/stock"),
                                      .body = op.charge ? R"({"amount": 1})" : ""};
      return caller->Call(request, {.op = std::to_string(op.id), .phase = "chaos"}, root).ok();
    };
    results_ = RunOpenLoop(plan, send, [](std::size_t) {});
  });
}

std::vector<OperationResult> SteadyLoad::Finish() {
  if (thread_.joinable()) thread_.join();
  return results_;
}

ChaosFigures Tally(const std::vector<OperationResult>& results, Duration fault_start, Duration fault_end,
                   Duration load_end, const BottomSnapshot& ledger) {
  ChaosFigures f{.requests = results.size(), .worst_lateness = -kEntryBudget};
  std::uint64_t n[3] = {}, ok[3] = {};
  for (const OperationResult& r : results) {
    const int when = r.offset < fault_start ? 0 : r.offset < fault_end ? 1 : 2;
    ++n[when];
    ok[when] += r.ok ? 1 : 0;
    f.worst_lateness = std::max(f.worst_lateness, r.latency - kEntryBudget);
  }
  f.success_before = Rate(ok[0], n[0]);
  f.success_during = Rate(ok[1], n[1]);
  f.success_after = Rate(ok[2], n[2]);
  f.recovery = RecoveryTime(results, fault_end, load_end);
  for (const auto& [phase, c] : ledger.phases) {
    f.reached_c += c.reached;
    f.charges += c.effects;
    f.duplicate_charges += c.duplicate_effects;
    f.orphans += c.orphans;
  }
  return f;
}

std::string Format(const std::string& scenario, const ChaosFigures& f) {
  char recovery[32] = "never";
  if (f.recovery) std::snprintf(recovery, sizeof recovery, "%.0f ms", ToMillis(*f.recovery));
  char text[512];
  std::snprintf(text, sizeof text,
                "chaos %s: requests %llu | success before %.1f%% during %.1f%% after %.1f%% | "
                "worst lateness vs deadline %+.0f ms | time to recover %s | duplicate charges %llu | "
                "orphan work %llu | attempts at C %llu, charges %llu\n",
                scenario.c_str(), static_cast<unsigned long long>(f.requests), 100 * f.success_before,
                100 * f.success_during, 100 * f.success_after, ToMillis(f.worst_lateness), recovery,
                static_cast<unsigned long long>(f.duplicate_charges), static_cast<unsigned long long>(f.orphans),
                static_cast<unsigned long long>(f.reached_c), static_cast<unsigned long long>(f.charges));
  return text;
}

}  // namespace stormguard::demo::chaos
