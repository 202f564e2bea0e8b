#include "stormguard/sim/hedge_scenario.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <queue>

#include "stormguard/core/call_context.h"
#include "stormguard/core/random.h"
#include "stormguard/hedge/hedge_policy.h"
#include "stormguard/hedge/latency_tracker.h"
#include "stormguard/retry/ratio_budget.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {
namespace {

// The hedges draw from their own stream, so every run sees the same first answers.
constexpr std::uint64_t kHedgeStream = 0x9e3779b97f4a7c15ULL;

struct FanOut {
  TimePoint start;
  std::vector<Duration> first;   // each leaf's first answer time
  std::vector<Duration> answer;  // when the leaf answered, hedge or not
  std::vector<bool> open;        // still waiting for a hedge decision
};

template <class T>
using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;

// Nearest rank: the smallest value with at least q of the values at or below it.
Duration Rank(const std::vector<Duration>& sorted, double q) {
  const auto n = static_cast<double>(sorted.size());
  const auto i = static_cast<std::size_t>(std::max(1.0, std::ceil(q * n)));
  return sorted[std::min(i, sorted.size()) - 1];
}

LatencyQuantiles Quantiles(std::vector<Duration>& v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {Rank(v, 0.5), Rank(v, 0.95), Rank(v, 0.99), Rank(v, 0.999)};
}

class Runner {
 public:
  Runner(const HedgeScenarioOptions& o, HedgeMode mode, int waited)
      : o_(o), waited_(waited), first_rng_(o.seed), hedge_rng_(o.seed ^ kHedgeStream) {
    run_.mode = mode;
    ctx_.idempotent = true;
  }

  Status Setup();
  HedgeRun Run();

 private:
  void Arrive(TimePoint now);
  void Decide(std::int64_t id, FanOut& f, TimePoint now);
  void Finish(const FanOut& f);
  void FlushRecords(TimePoint until);

  const HedgeScenarioOptions& o_;
  int waited_;
  Random first_rng_;
  Random hedge_rng_;
  HedgeRun run_;
  CallContext ctx_;
  std::optional<HedgePolicy> policy_;
  std::shared_ptr<LatencyTracker> tracker_;
  std::shared_ptr<RatioBudget> budget_;
  std::map<std::int64_t, FanOut> live_;
  std::int64_t next_id_ = 0;
  MinHeap<std::pair<TimePoint, std::int64_t>> checks_;    // when a fan-out's leaves decide again
  MinHeap<std::pair<TimePoint, Duration::rep>> records_;  // latencies for the tracker, by end time
  std::vector<Duration> leaf_;
  std::vector<Duration> fan_out_;
};

Status Runner::Setup() {
  if (run_.mode == HedgeMode::kOff) return Status::Ok();
  Result<std::shared_ptr<RatioBudget>> budget =
      RatioBudget::Create({.min_retries_per_second = 0, .retry_ratio = o_.max_extra_load});
  if (!budget.ok()) return budget.status();
  budget_ = std::move(budget).value();
  HedgeOptions h{.delay = o_.delay, .idempotent = true, .budget = budget_};
  if (run_.mode == HedgeMode::kLive) {
    Result<std::shared_ptr<LatencyTracker>> t = LatencyTracker::Create({});
    if (!t.ok()) return t.status();
    tracker_ = std::move(t).value();
    h.latency = tracker_;
    h.quantile = o_.quantile;
    h.max_delay = o_.latency.max;  // a later hedge could never win
  }
  Result<HedgePolicy> p = HedgePolicy::Create(std::move(h));
  if (!p.ok()) return p.status();
  policy_.emplace(std::move(p).value());
  return Status::Ok();
}

void Runner::Arrive(TimePoint now) {
  const auto n = static_cast<std::size_t>(o_.leaves);
  FanOut f{.start = now, .first = std::vector<Duration>(n), .answer = {}, .open = std::vector<bool>(n, true)};
  for (Duration& d : f.first) d = o_.latency.Sample(first_rng_);
  f.answer = f.first;
  run_.leaf_requests += o_.leaves;
  if (!policy_) return Finish(f);
  for (int i = 0; i < o_.leaves; ++i) budget_->OnRequestStart(now);
  const std::int64_t id = next_id_++;
  Decide(id, live_.emplace(id, std::move(f)).first->second, now);
}

// Asks the policy, for each leaf still unanswered at `now`, whether to hedge.
void Runner::Decide(std::int64_t id, FanOut& f, TimePoint now) {
  const Duration elapsed = now - f.start;
  Duration wait = kInfiniteDuration;
  for (std::size_t i = 0; i < f.first.size(); ++i) {
    if (!f.open[i]) continue;
    if (f.first[i] <= elapsed) {
      f.open[i] = false;  // answered before the hedge was due
      continue;
    }
    const HedgeDecision d = policy_->Decide({.launched = 1, .last_launch = f.start}, ctx_, now);
    if (d.action == HedgeAction::kWait) {
      wait = std::min(wait, d.wait);
      continue;
    }
    f.open[i] = false;
    if (d.action == HedgeAction::kStop) {
      run_.budget_refusals += d.reason == HedgeStop::kBudgetExhausted ? 1 : 0;
      continue;
    }
    ++run_.hedges;
    const Duration hedged = elapsed + o_.latency.Sample(hedge_rng_);
    if (hedged < f.first[i]) {
      ++run_.hedge_wins;
      f.answer[i] = hedged;
      if (tracker_) records_.emplace(f.start + hedged, (hedged - elapsed).count());
    }
  }
  run_.last_delay = policy_->CurrentDelay(now);
  const bool waiting = std::any_of(f.open.begin(), f.open.end(), [](bool b) { return b; });
  if (waiting && wait != kInfiniteDuration) {
    checks_.emplace(SaturatingAdd(now, wait), id);
    return;
  }
  Finish(f);
  live_.erase(id);
}

void Runner::Finish(const FanOut& f) {
  for (std::size_t i = 0; i < f.answer.size(); ++i) {
    leaf_.push_back(f.answer[i]);
    // As the hedge driver: the winner's own time; a slower first try, its time so far.
    if (tracker_) records_.emplace(f.start + f.answer[i], f.answer[i].count());
  }
  std::vector<Duration> sorted = f.answer;
  std::nth_element(sorted.begin(), sorted.begin() + (waited_ - 1), sorted.end());
  fan_out_.push_back(sorted[static_cast<std::size_t>(waited_ - 1)]);
}

void Runner::FlushRecords(TimePoint until) {
  while (!records_.empty() && records_.top().first <= until) {
    tracker_->Record(Duration(records_.top().second), records_.top().first);
    records_.pop();
  }
}

HedgeRun Runner::Run() {
  const auto mean = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / o_.rate));
  leaf_.reserve(static_cast<std::size_t>(o_.requests) * static_cast<std::size_t>(o_.leaves));
  fan_out_.reserve(static_cast<std::size_t>(o_.requests));
  TimePoint arrival = TimePoint{} + first_rng_.Exponential(mean);
  std::int64_t arrived = 0;
  while (arrived < o_.requests || !checks_.empty()) {
    const bool check = !checks_.empty() && (arrived == o_.requests || checks_.top().first <= arrival);
    const TimePoint now = check ? checks_.top().first : arrival;
    FlushRecords(now);
    if (check) {
      const std::int64_t id = checks_.top().second;
      checks_.pop();
      Decide(id, live_.at(id), now);
      continue;
    }
    Arrive(now);
    ++arrived;
    arrival += first_rng_.Exponential(mean);
  }
  run_.leaf = Quantiles(leaf_);
  run_.fan_out = Quantiles(fan_out_);
  return run_;
}

int Waited(const HedgeScenarioOptions& o) {
  return std::clamp(static_cast<int>(std::ceil(o.wait_for * o.leaves - 1e-9)), 1, o.leaves);
}

}  // namespace

std::string_view HedgeModeName(HedgeMode m) noexcept {
  switch (m) {
    case HedgeMode::kOff: return "off";
    case HedgeMode::kFixed: return "fixed";
    case HedgeMode::kLive: return "live";
  }
  return "unknown";
}

std::vector<std::string> HedgeScenarioOptions::Validate() const {
  Validator v;
  v.Nest("latency", latency.Validate());
  v.Check(leaves >= 1 && leaves <= 10'000, "leaves", "must be in [1, 10000]");
  v.CheckRange(wait_for, "wait_for", {0.0, 1.0, /*lo_open=*/true});
  v.Check(requests >= 1 && requests <= 10'000'000, "requests", "must be in [1, 10000000]");
  v.Check(std::isfinite(rate) && rate >= 0.001 && rate <= 1e6, "rate", "must be in [0.001, 1e6]");
  v.Check(delay >= Duration::zero() && delay <= std::chrono::hours(1), "delay", "must be in [0, 1h]");
  v.CheckRange(quantile, "quantile", {0.0, 1.0, /*lo_open=*/true, /*hi_open=*/true});
  v.CheckRange(max_extra_load, "max_extra_load", {0.0, 1.0});
  if (!v.errors().empty()) return std::move(v).errors();
  const double leaf_requests = static_cast<double>(requests) * leaves;
  CheckLimit(v, "requests", leaf_requests, kMaxHedgeLeafRequests,
             std::to_string(requests) + " requests to " + std::to_string(leaves) + " leaves", "leaf requests");
  // Fan-outs wait in memory until their last hedge decision; their latencies until the tracker takes them.
  const double held_s = Seconds(std::max(delay, latency.max)) + Seconds(latency.max);
  CheckLimit(v, "rate", rate * leaves * held_s, kMaxLiveCalls,
             Estimate(rate) + " requests/s to " + std::to_string(leaves) + " leaves held up to " + Estimate(held_s) +
                 "s",
             "live leaf requests");
  return std::move(v).errors();
}

Result<HedgeScenarioResult> RunHedgeScenario(const HedgeScenarioOptions& o) {
  Status s = ValidationStatus("hedge options", o.Validate());
  if (!s.ok()) return s;
  HedgeScenarioResult out{.options = o, .waited_leaves = Waited(o), .runs = {}};
  for (HedgeMode mode : {HedgeMode::kOff, HedgeMode::kFixed, HedgeMode::kLive}) {
    Runner runner(o, mode, out.waited_leaves);
    Status setup = runner.Setup();
    if (!setup.ok()) return setup;
    out.runs.push_back(runner.Run());
  }
  return out;
}

}  // namespace stormguard::sim
