// "timeout" (the overall timeout) and "attempt_timeout" (per attempt, fixed
// or following latency): TimeoutConfig.
#include "json_fields.h"
#include "policies/builtin_policies.h"

namespace stormguard::config::config_internal {
namespace {

std::any ReadOverall(const Json& j, const std::string& path, Errors& errors) {
  TimeoutConfig c;
  Read(j, path, errors, c);
  if (c.adaptive) {
    errors.push_back(ChildPath(path, "adaptive") +
                     ": only attempt_timeout follows latency (the overall timeout bounds the whole call)");
  }
  return c;
}

// The adaptive timeout's tracker: its own, the hedge's when that hedge
// follows latency (one tracker for both), or one with default options.
void AddAttemptTimeout(const TimeoutConfig& c, StageBuildContext& ctx) {
  DestinationBuild& d = Destination(ctx);
  TimeoutOptions o = c.timeout;
  if (c.adaptive) {
    const std::string at = ChildPath(ctx.path, "adaptive");
    AdaptiveTimeoutOptions a = c.adaptive->options;
    a.latency = c.adaptive->latency          ? MakeTracker(*c.adaptive->latency, d, at)
                : d.hedge_latency != nullptr ? d.hedge_latency
                                             : MakeTracker(LatencyTrackerOptions{}, d, at);
    if (a.latency == nullptr) return;
    a.record_successes = a.latency != d.hedge_latency;  // the hedge records them (adaptive_timeout.h)
    auto adaptive = AdaptiveTimeout::Create(std::move(a));
    if (!adaptive.ok()) {
      ctx.errors.push_back(at + ": " + adaptive.status().message());
      return;
    }
    o.adaptive = std::move(adaptive).value();
  }
  ctx.builder.AddAttemptTimeout(std::move(o));
}

}  // namespace

StagePolicy TimeoutPolicy() {
  return {
      .name = "timeout",
      .defaults = TimeoutConfig{},
      .read = ReadOverall,
      .write = WriteOptions<TimeoutConfig>,
      .placement = [](const std::any&) { return TimeoutStage::kOverall; },
      .build = [](const std::any& o,
                  StageBuildContext& ctx) { ctx.builder.AddTimeout(std::any_cast<const TimeoutConfig&>(o).timeout); }};
}

StagePolicy AttemptTimeoutPolicy() {
  return {.name = "attempt_timeout",
          .defaults = TimeoutConfig{},
          .read = ReadOptions<TimeoutConfig>,
          .write = WriteOptions<TimeoutConfig>,
          .placement = [](const std::any&) { return TimeoutStage::kPerAttempt; },
          .build = [](const std::any& o,
                      StageBuildContext& ctx) { AddAttemptTimeout(std::any_cast<const TimeoutConfig&>(o), ctx); }};
}

}  // namespace stormguard::config::config_internal
