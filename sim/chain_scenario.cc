#include "stormguard/sim/chain_scenario.h"

#include <cmath>

#include "stormguard/core/validation.h"
#include "stormguard/sim/limits.h"

namespace stormguard::sim {

std::string_view FailureName(Failure f) noexcept { return f == Failure::kError ? "error" : "hang"; }

double UncontrolledAmplification(int layers, int retries) noexcept { return std::pow(1.0 + retries, layers); }

std::vector<std::string> ChainScenarioOptions::Validate() const {
  Validator v;
  v.Check(layers >= 1 && layers <= 16, "layers", "must be in [1, 16]");
  v.Check(retries >= 0 && retries <= 100, "retries", "must be in [0, 100]");
  v.Check(!controls.empty(), "controls", "must name at least one control");
  v.Check(rate > 0, "rate", "must be positive");
  v.Check(duration > Duration::zero(), "duration", "must be positive");
  v.Check(failure_rate >= 0 && failure_rate <= 1, "failure_rate", "must be in [0, 1]");
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(deadline > Duration::zero(), "deadline", "must be positive");
  v.Check(latency >= Duration::zero(), "latency", "must not be negative");
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  if (!v.errors().empty()) return std::move(v).errors();  // the estimates need sane values
  // Every control is bounded by the run without one: each layer tries
  // 1 + retries times, each attempt ends by its timeout (or the bottom's
  // latency), and a request's calls live no longer than its top retry loop.
  const double per_request = ChainAttempts(layers, retries) * static_cast<double>(controls.size());
  const double offered = rate * Seconds(duration) + 1;
  const std::string shape = std::to_string(layers) + " layers of " + std::to_string(retries) + " retries";
  if (per_request > kMaxAttempts) {
    CheckLimit(v, "retries", per_request, kMaxAttempts,
               shape + " x " + std::to_string(controls.size()) + " controls, for one request,", "attempts");
  } else {
    CheckLimit(v, "duration", offered * per_request, kMaxAttempts,
               Estimate(Seconds(duration)) + "s at " + Estimate(rate) + " requests/s, " + shape + " x " +
                   std::to_string(controls.size()) + " controls,",
               "attempts");
  }
  const double life = LoopSeconds(retries, timeout, LayerPolicy{}.backoff.cap) + Seconds(latency);
  CheckLimit(v, "rate", rate * life * (1 + ChainAttempts(layers, retries)), kMaxLiveCalls,
             Estimate(rate) + " requests/s, each in flight for up to " + Estimate(life) + "s through " + shape + ",",
             "calls in flight");
  // Per control: arrivals at every node, retries of every hop, four outcomes.
  CheckBuckets(v, Seconds(duration) + life, bucket, (2.0 * layers + 5) * static_cast<double>(controls.size()));
  return std::move(v).errors();
}

namespace {

Result<ChainSpec> SpecFor(const ChainScenarioOptions& o, Control control) {
  const ControlSet c = ControlsOf(control);
  ChainSpec spec;
  for (int i = 0; i < o.layers; ++i) {
    Result<HopSpec> hop = MakeHop(c, {.retries = o.retries, .timeout = o.timeout});
    if (!hop.ok()) return std::move(hop).status();
    spec.services.push_back({.name = std::to_string(i + 1)});
    spec.hops.push_back(std::move(hop).value());
  }
  ServiceSpec bottom{.name = "bottom", .latency = Latency::Fixed(o.latency)};
  (o.failure == Failure::kError ? bottom.error_rate : bottom.hang_rate) = o.failure_rate;
  spec.services.push_back(std::move(bottom));
  spec.load = {.rate = o.rate, .duration = o.duration};
  if (c.deadlines) spec.load.deadline = o.deadline;
  spec.bucket = o.bucket;
  spec.seed = o.seed;
  return spec;
}

ChainRun Summarize(Control control, const ChainResult& r) {
  ChainRun run{.control = control,
               .offered = r.offered,
               .bottom_attempts = r.nodes.back().arrivals,
               .amplification = r.amplification(),
               .success_rate = r.success_rate(),
               .layers = {},
               .series = r.series,
               .events = r.events};
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    LayerRow row{.name = i + 1 == r.nodes.size() ? "bottom" : std::to_string(i + 1), .arrivals = r.nodes[i].arrivals};
    if (i < r.hops.size()) {
      row.retries = r.hops[i].retries;
      row.budget_refused = r.hops[i].budget_refused;
      row.breaker_refused = r.hops[i].breaker_refused;
      row.timeouts = r.hops[i].timeouts;
    }
    row.load = r.offered == 0 ? 0 : static_cast<double>(row.arrivals) / static_cast<double>(r.offered);
    run.layers.push_back(std::move(row));
  }
  return run;
}

}  // namespace

Result<ChainScenarioResult> RunChainScenario(const ChainScenarioOptions& options) {
  Status s = ValidationStatus("chain options", options.Validate());
  if (!s.ok()) return s;
  Result<std::vector<ChainResult>> runs = RunForEachControl(
      options.controls, [&options](Control c) { return SpecFor(options, c); }, options.progress);
  if (!runs.ok()) return std::move(runs).status();
  ChainScenarioResult out{.options = options, .runs = {}};
  for (std::size_t i = 0; i < runs->size(); ++i) out.runs.push_back(Summarize(options.controls[i], (*runs)[i]));
  return out;
}

}  // namespace stormguard::sim
