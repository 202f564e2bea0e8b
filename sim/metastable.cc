#include "stormguard/sim/metastable.h"

#include "stormguard/core/validation.h"
#include "stormguard/sim/chain.h"
#include "stormguard/sim/limits.h"

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
  v.Check(bucket > Duration::zero(), "bucket", "must be positive");
  v.Check(trigger_at >= bucket, "trigger_at", "must leave at least one bucket before the trigger");
  v.Check(trigger_for > Duration::zero(), "trigger_for", "must be positive");
  // Saturating: trigger_at and trigger_for may each be near Duration::max().
  v.Check(duration >= SaturatingAdd(SaturatingAdd(trigger_at, trigger_for), bucket), "duration",
          "must last a bucket or more past the end of the trigger");
  v.Check(timeout > Duration::zero(), "timeout", "must be positive");
  v.Check(patience > Duration::zero(), "patience", "must be positive");
  v.Check(queue >= 0, "queue", "must not be negative");
  if (!v.errors().empty()) return std::move(v).errors();  // the estimates need sane values
  // As in the chain scenario: no control makes more attempts than none, and
  // a request's calls live no longer than its top retry loop; besides, up
  // to queue + workers calls wait or work at the service.
  const double rate = load * capacity();
  const double per_request = ChainAttempts(layers, retries) * static_cast<double>(controls.size());
  const std::string shape = std::to_string(layers) + " layers of " + std::to_string(retries) + " retries";
  if (per_request > kMaxAttempts) {
    CheckLimit(v, "retries", per_request, kMaxAttempts, shape + ", for one request,", "attempts");
  } else {
    CheckLimit(v, "duration", (rate * Seconds(duration) + 1) * per_request, kMaxAttempts,
               Estimate(Seconds(duration)) + "s at " + Estimate(rate) + " requests/s, " + shape + " x " +
                   std::to_string(controls.size()) + " controls,",
               "attempts");
  }
  const double life = LoopSeconds(retries, timeout, LayerPolicy{}.backoff.cap);
  CheckLimit(v, "load", rate * life * (1 + ChainAttempts(layers, retries)), kMaxLiveCalls,
             Estimate(rate) + " requests/s, each in flight for up to " + Estimate(life) + "s through " + shape + ",",
             "calls in flight");
  CheckLimit(v, "queue", static_cast<double>(queue) + workers, kMaxLiveCalls,
             "a queue of " + std::to_string(queue) + " and " + std::to_string(workers) + " workers", "calls held");
  // Per control: as in the chain scenario, plus the goodput per bucket.
  CheckBuckets(v, Seconds(duration) + Seconds(patience) + Seconds(bucket), bucket,
               (2.0 * layers + 6) * static_cast<double>(controls.size()));
  return std::move(v).errors();
}

namespace {

Result<ChainSpec> SpecFor(const MetastableOptions& o, Control control) {
  const ControlSet c = ControlsOf(control);
  ChainSpec spec;
  for (int i = 0; i < o.layers; ++i) {
    Result<HopSpec> hop = MakeHop(c, {.retries = o.retries, .timeout = o.timeout, .min_attempt_time = o.latency});
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
  spec.run_until = SaturatingAdd(SaturatingAdd(o.duration, o.patience), o.bucket);
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
  std::size_t healthy_from = last;  // `last`: not healthy again within the run
  for (std::size_t i = end; i < last; ++i) {
    if (Goodput(r, i, i + 1) < 0.9 * run.goodput_before) {
      healthy_from = last;
    } else if (healthy_from == last) {
      healthy_from = i;
    }
  }
  if (healthy_from < last) run.recovery = r.series.bucket * static_cast<std::int64_t>(healthy_from - end);
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
