#include "stormguard/sim/metastable.h"

#include "stormguard/core/validation.h"
#include "stormguard/sim/chain.h"

namespace stormguard::sim {

double MetastableOptions::capacity() const noexcept {
  return latency > Duration::zero() ? workers / (ToMillis(latency) / 1000.0) : 0.0;
}

std::vector<std::string> MetastableOptions::Validate() const {
  Validator v;
  v.Check(!controls.empty(), "controls", "must name at least one control");
  v.Check(layers >= 1 && layers <= 8, "layers", "must be in [1, 8]");
  v.Check(retries >= 0 && retries <= 100, "retries", "must be in [0, 100]");
  v.Check(load > 0, "load", "must be positive");
  v.Check(workers >= 1, "workers", "must be at least 1");
  v.Check(latency > Duration::zero(), "latency", "must be positive");
  v.Check(drop >= 0 && drop <= 1, "drop", "must be in [0, 1]");
  v.Check(trigger_at >= bucket, "trigger_at", "must leave at least one bucket before the trigger");
  v.Check(trigger_for > Duration::zero(), "trigger_for", "must be positive");
  v.Check(duration >= trigger_at + trigger_for + bucket, "duration", "must leave time after the trigger");
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(patience > Duration::zero(), "patience", "must be positive");
  v.Check(queue >= 0, "queue", "must not be negative");
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  return std::move(v).errors();
}

namespace {

Result<ChainSpec> SpecFor(const MetastableOptions& o, Control control) {
  const ControlSet c = ControlsOf(control);
  ChainSpec spec;
  for (int i = 0; i < o.layers; ++i) {
    Result<HopSpec> hop =
        MakeHop(c, {.retries = o.retries, .timeout = o.timeout, .min_attempt_time = o.latency});
    if (!hop.ok()) return std::move(hop).status();
    spec.services.push_back({.name = std::to_string(i + 1)});
    spec.hops.push_back(std::move(hop).value());
  }
  spec.services.push_back({.name = "service",
                           .concurrency = o.workers,
                           .queue_limit = o.queue,
                           .latency = Latency::Exponential(o.latency),
                           .capacity_drops = {{.window = {o.trigger_at, o.trigger_at + o.trigger_for},
                                               .factor = 1.0 - o.drop}},
                           .refuse_expired = c.deadlines});
  spec.load = {.rate = o.load * o.capacity(), .duration = o.duration, .patience = o.patience};
  if (c.deadlines) spec.load.deadline = o.patience;
  spec.bucket = o.bucket;
  // Every client request is settled (answered or given up on) by then.
  spec.run_until = o.duration + o.patience + o.bucket;
  spec.seed = o.seed;
  return spec;
}

double Goodput(const ChainResult& r, std::size_t from, std::size_t to) {
  std::int64_t offered = 0, good = 0;
  for (std::size_t i = from; i < to; ++i) {
    offered += At(r.series.arrivals[0], i);
    good += At(r.series.good_by_arrival, i);
  }
  return offered == 0 ? 0.0 : static_cast<double>(good) / static_cast<double>(offered);
}

MetastableRun Summarize(const MetastableOptions& o, Control control, const ChainResult& r) {
  const std::size_t start = r.series.BucketOf(o.trigger_at);
  const std::size_t end = r.series.BucketOf(o.trigger_at + o.trigger_for);
  const std::size_t last = r.series.BucketOf(o.duration);
  MetastableRun run{.control = control,
                    .goodput_before = Goodput(r, 0, start),
                    .goodput_during = Goodput(r, start, end),
                    .goodput_after = Goodput(r, end, last),
                    .offered = r.offered,
                    .amplification = r.amplification(),
                    .peak_queue = r.nodes.back().peak_queue,
                    .series = r.series,
                    .events = r.events};
  for (std::size_t i = 0; i < last; ++i) {
    run.goodput_permille.push_back(static_cast<std::int64_t>(Goodput(r, i, i + 1) * 1000 + 0.5));
  }
  // The first bucket after the trigger from which every bucket is healthy.
  std::optional<std::size_t> healthy_from;
  for (std::size_t i = end; i < last; ++i) {
    const bool healthy = Goodput(r, i, i + 1) >= 0.9 * run.goodput_before;
    if (!healthy) healthy_from.reset();
    if (healthy && !healthy_from) healthy_from = i;
  }
  if (healthy_from) run.recovery = r.series.bucket * static_cast<std::int64_t>(*healthy_from - end);
  return run;
}

}  // namespace

Result<MetastableResult> RunMetastable(const MetastableOptions& options) {
  Status s = ValidationStatus("metastable options", options.Validate());
  if (!s.ok()) return s;
  Result<std::vector<ChainResult>> runs = RunForEachControl(
      options.controls, [&options](Control c) { return SpecFor(options, c); }, options.progress);
  if (!runs.ok()) return std::move(runs).status();
  MetastableResult out{.options = options, .runs = {}};
  for (std::size_t i = 0; i < runs->size(); ++i) {
    out.runs.push_back(Summarize(options, options.controls[i], (*runs)[i]));
  }
  return out;
}

}  // namespace stormguard::sim
