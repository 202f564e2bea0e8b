#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>

#include "stormguard/config/budget_factory.h"
#include "stormguard/sim/chain.h"

namespace stormguard::plan {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

double SecondsOf(Duration d) { return std::chrono::duration<double>(d).count(); }

// Requests reaching a service, per request at the top: those that are not
// retries (nor serve one), and those that are (they carry the retry flag).
struct Flow {
  double plain = 1;
  double flagged = 0;
  double total() const noexcept { return plain + flagged; }
};

// How many retries a budget grants a hop whose every attempt fails, over
// the run: `share` per call made plus `once` in all.
struct RetryCap {
  double share = kUnbounded;
  double once = 0;
};

RetryCap CapOf(const config::BudgetOptions& budget, double run_seconds) {
  return std::visit(
      [run_seconds](const auto& o) -> RetryCap {
        using O = std::decay_t<decltype(o)>;
        // No success refills a bucket: it grants what it holds, then nothing.
        if constexpr (std::is_same_v<O, TokenBucketBudgetOptions>) return {.share = 0, .once = o.max_tokens};
        // Every failure costs a token; retries stop at half the bucket.
        if constexpr (std::is_same_v<O, GrpcThrottleBudgetOptions>)
          return {.share = 0, .once = std::ceil(o.max_tokens / 2)};
        if constexpr (std::is_same_v<O, RatioBudgetOptions>)
          return {.share = o.retry_ratio, .once = o.min_retries_per_second * (run_seconds + SecondsOf(o.ttl))};
        // Above its threshold the gate grants nothing once a window holds min_requests outcomes.
        if constexpr (std::is_same_v<O, FailureRateGateOptions>)
          return {.share = 0, .once = o.min_requests * (std::ceil(run_seconds / SecondsOf(o.window)) + 1)};
        // A concurrency budget bounds retries in flight, not their number.
        return {};
      },
      budget);
}

// The flow into the callee of `hop` given the flow into its caller.
Flow Next(const lint::Hop& hop, Flow in, bool flag) {
  const double a = hop.attempts();
  const bool honours = flag && hop.retry && !hop.retry->options.retry_when_serving_a_retry;
  return {.plain = in.plain, .flagged = in.plain * (a - 1) + in.flagged * (honours ? 1 : a)};
}

// `requests` at the top over `seconds`.
Flow Capped(const lint::Hop& hop, Flow in, Flow out, double requests, double seconds) {
  if (!hop.destination->retry_budget || requests <= 0) return out;
  const RetryCap cap = CapOf(*hop.destination->retry_budget, seconds);
  const double retries = out.total() - in.total();
  const double granted = std::min(retries, cap.share * in.total() + cap.once / requests);
  return {.plain = in.plain, .flagged = out.flagged - (retries - granted)};
}

Duration Scale(Duration d, double f) {
  if (d == kInfiniteDuration) return d;
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double, Duration::period>(d.count() * f));
}

// The computed columns. Budgets grant their allowance over `requests`
// requests in `seconds`: the simulated run, or the one asked for when none ran.
void Compute(const lint::Chain& chain, const std::vector<lint::Hop>& hops, double requests, double seconds,
             Plan& plan) {
  Flow none, flag, all;
  Duration left = hops.empty() ? kInfiniteDuration : hops.front().overall_timeout;
  plan.layers[0].uncontrolled = plan.layers[0].with_flag = plan.layers[0].expected = 1;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    none = Next(hops[i], none, false);
    flag = Next(hops[i], flag, true);
    all = Capped(hops[i], all, Next(hops[i], all, true), requests, seconds);
    left = Scale(std::min(left, hops[i].AttemptWindow()), 1 - chain.hop_reserve);
    LayerPlan& l = plan.layers[i + 1];
    l.uncontrolled = none.total();
    l.with_flag = flag.total();
    l.expected = all.total();
    l.time_left = left;
  }
  // Bottom up: a hanging bottom never answers; each caller waits for its
  // attempts (each bounded by its window or the callee's whole call).
  Duration callee = kInfiniteDuration;
  for (auto h = hops.rbegin(); h != hops.rend(); ++h) {
    callee = std::min(h->overall_timeout, h->LoopWorstCase(std::min(h->AttemptWindow(), callee)));
  }
  plan.top_latency = callee;
}

// Calls reaching all services per request, the retry flag honoured where
// configured: what the simulator sends at most (budgets and deadlines only
// take calls away).
double CallsPerRequest(const std::vector<lint::Hop>& hops) {
  Flow flow;
  double calls = flow.total();
  for (const lint::Hop& hop : hops) {
    flow = Next(hop, flow, true);
    calls += flow.total();
  }
  return calls;
}

Result<sim::HopSpec> SimHop(const lint::Hop& hop) {
  sim::HopSpec spec{.retry = hop.retry ? hop.retry->options : RetryOptions{.max_attempts = 1}};
  spec.retry.per_attempt_timeout = hop.attempt_timeout;
  spec.forward_retry_flag = true;  // a request serving a retry marks its own calls
  if (hop.destination->retry_budget) {
    Result<std::shared_ptr<RetryBudget>> budget = config::MakeBudget(*hop.destination->retry_budget);
    if (!budget.ok()) return std::move(budget).status();
    spec.retry.budget = std::move(budget).value();
  }
  return spec;
}

// `slots` request slots at the plan's rate: one request each but the first
// instant's (999 requests for 1000 slots at 100 per second).
Status Simulate(const lint::Chain& chain, const std::vector<lint::Hop>& hops, const PlanOptions& o, double slots,
                Plan& plan) {
  sim::ChainSpec spec;
  for (const lint::ChainService& s : chain.services) spec.services.push_back({.name = s.name});
  spec.services.back().error_rate = 1;  // the bottom is down
  for (const lint::Hop& hop : hops) {
    Result<sim::HopSpec> h = SimHop(hop);
    if (!h.ok()) return Status::InvalidArgument(hop.caller->name + ": " + h.status().message());
    spec.hops.push_back(std::move(h).value());
  }
  spec.load = {.rate = o.rate, .duration = Scale(std::chrono::seconds(1), slots / o.rate), .evenly_spaced = true};
  spec.seed = o.seed;
  Result<sim::ChainResult> r = sim::RunChain(spec);
  if (!r.ok()) return std::move(r).status();
  plan.simulated_requests = r->offered;
  for (std::size_t i = 0; i < r->nodes.size(); ++i) {
    const double arrivals = static_cast<double>(r->nodes[i].arrivals);
    plan.layers[i].simulated = r->offered == 0 ? 0 : arrivals / static_cast<double>(r->offered);
  }
  return Status::Ok();
}

}  // namespace

Result<Plan> MakePlan(const lint::Chain& chain, const std::vector<lint::Hop>& hops, const PlanOptions& options) {
  Plan plan{.chain = chain.path,
            .layers = {},
            .top_latency = kInfiniteDuration,
            .simulation = Simulation::kFull,
            .simulated_requests = 0,
            .requested = options.requests,
            .calls_per_request = CallsPerRequest(hops),
            .max_calls = options.max_calls};
  for (const lint::ChainService& s : chain.services) plan.layers.push_back({.service = s.name});
  // As many requests as the cap allows: n + 1 slots offer n.
  const double slots = std::min<double>(options.requests, std::floor(options.max_calls / plan.calls_per_request) + 1);
  if (slots < options.requests) plan.simulation = slots >= 2 ? Simulation::kCapped : Simulation::kSkipped;
  // The simulation first: the budgets' bounds depend on the requests it offered.
  if (plan.simulation != Simulation::kSkipped) {
    Status s = Simulate(chain, hops, options, slots, plan);
    if (!s.ok()) return s;
  }
  const double run = plan.simulation == Simulation::kSkipped ? options.requests : slots;
  const double requests = plan.simulated_requests > 0 ? static_cast<double>(plan.simulated_requests) : run;
  Compute(chain, hops, requests, run / options.rate, plan);
  return plan;
}

}  // namespace stormguard::plan
