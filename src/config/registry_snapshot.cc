// Building a configuration's pipelines: the destination's own, then one per
// method entry with the entry's overrides (config.h, FindMethod).
#include "registry_snapshot.h"

#include <algorithm>
#include <utility>

#include "destination_build.h"
#include "json_io.h"
#include "stormguard/config/preset.h"
#include "stormguard/config/status_codes.h"

namespace stormguard::config::config_internal {

std::shared_ptr<LatencyTracker> MakeTracker(const LatencyTrackerOptions& o, DestinationBuild& d,
                                            const std::string& path) {
  auto tracker = LatencyTracker::Create(o);
  if (!tracker.ok()) {
    d.errors.push_back(ChildPath(path, "latency") + ": " + tracker.status().message());
    return nullptr;
  }
  return std::move(tracker).value();
}

const Classifier* CodesClassifier(const std::vector<StatusCode>& codes, Snapshot& s) {
  s.classifiers.push_back(std::make_unique<StatusCodeClassifier>(codes));
  return s.classifiers.back().get();
}

namespace {

// The stage added by its policy.
void AddStage(PipelineBuilder& b, const StageConfig& s, DestinationBuild& d, const std::string& path) {
  StageBuildContext ctx{.builder = b, .path = path, .errors = d.errors, .pipeline = d.env.pipeline, .internal = &d};
  s.policy()->build(s.any_options(), ctx);
}

// Builds `b` into the snapshot; null (and an error at `path`) when the
// builder refuses it.
const Pipeline* Keep(const PipelineBuilder& b, DestinationBuild& d, const std::string& path) {
  auto built = b.Build();
  if (!built.ok()) {
    std::string why = built.status().message();
    constexpr std::string_view kPrefix = "invalid pipeline: ";  // the path says which
    if (why.starts_with(kPrefix)) why.erase(0, kPrefix.size());
    d.errors.push_back(path + ": " + why);
    return nullptr;
  }
  return d.snapshot.pipelines.emplace_back(std::move(built).value()).get();
}

// `stages` with `m`'s timeout, retry and hedge in place of the pipeline's,
// or added where they belong: the timeout outermost but inside leading
// fallbacks, the retry inside the timeout, the hedge inside the retry.
std::vector<StageConfig> WithMethod(std::vector<StageConfig> stages, const MethodConfig& m) {
  auto index_of = [&](std::string_view kind) {
    return static_cast<std::size_t>(std::find_if(stages.begin(), stages.end(),
                                                 [kind](const StageConfig& s) { return s.Is(kind); }) -
                                    stages.begin());
  };
  auto place = [&](std::string_view kind, std::initializer_list<std::string_view> inside) -> StageConfig& {
    if (const std::size_t i = index_of(kind); i < stages.size()) return stages[i];
    std::size_t at = 0;
    while (at < stages.size() && stages[at].Is("fallback")) ++at;
    for (std::string_view outer : inside) {
      if (const std::size_t i = index_of(outer); i < stages.size()) {
        at = i + 1;
        break;
      }
    }
    return *stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(at), StageConfig::Of(kind));
  };
  if (m.timeout) place("timeout", {}).options<TimeoutConfig>()->timeout.timeout = *m.timeout;
  if (m.retry) *place("retry", {"timeout"}).options<RetryConfig>() = *m.retry;
  if (m.hedge) *place("hedge", {"retry", "timeout"}).options<HedgeConfig>() = *m.hedge;
  return stages;
}

const Pipeline* BuildStages(const std::vector<StageConfig>& stages, DestinationBuild& d, const std::string& path,
                            bool name_stages) {
  PipelineBuilder b(d.env.pipeline);
  const std::size_t errors_before = d.errors.size();
  d.next_chaos = 0;
  auto stage_path = [&](std::size_t i) { return name_stages ? IndexPath(ChildPath(path, "stages"), i) : path; };
  d.hedge_latency = nullptr;  // made first: a per-attempt timeout may sit outside the hedge
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (const HedgeConfig* h = stages[i].options<HedgeConfig>(); h != nullptr && h->latency) {
      d.hedge_latency = MakeTracker(*h->latency, d, stage_path(i));
    }
  }
  for (std::size_t i = 0; i < stages.size(); ++i) AddStage(b, stages[i], d, stage_path(i));
  if (d.errors.size() != errors_before) return nullptr;
  return Keep(b, d, path);
}

const Pipeline* BuildMethod(const DestinationConfig& dest, const MethodConfig& m, const Pipeline* base,
                            DestinationBuild& d, const std::string& path) {
  if (!m.timeout && !m.retry && !m.hedge) return base;
  if (dest.pipeline.preset) {
    d.errors.push_back(path + ": the destination's pipeline is the preset " + dest.pipeline.preset->name +
                       ", which a method entry cannot change; list the pipeline's stages instead");
    return nullptr;
  }
  return BuildStages(WithMethod(dest.pipeline.stages, m), d, path, false);
}

DestinationPipelines BuildDestination(const DestinationConfig& dest, DestinationBuild& d, const std::string& path) {
  DestinationPipelines out;
  const std::string pipeline_path = ChildPath(path, "pipeline");
  if (dest.pipeline.preset) {
    const std::string preset_path = ChildPath(pipeline_path, dest.pipeline.preset->name);
    Result<PresetStages> expanded = ExpandPreset(*dest.pipeline.preset);
    if (!expanded.ok()) {
      d.errors.push_back(preset_path + ": " + expanded.status().message());
      return out;
    }
    out.pipeline = BuildStages(expanded->stages, d, preset_path, false);
  } else {
    out.pipeline = BuildStages(dest.pipeline.stages, d, pipeline_path, true);
  }
  if (out.pipeline == nullptr) return out;  // its errors would repeat in every method
  std::vector<std::pair<std::string, const Pipeline*>> exact, services;
  for (const auto& [name, m] : dest.methods) {
    const Pipeline* p = BuildMethod(dest, m, out.pipeline, d, ChildPath(ChildPath(path, "methods"), name));
    if (name == "*") {
      out.any = p;
    } else if (name.ends_with("/*")) {
      services.emplace_back(name.substr(0, name.size() - 1), p);
    } else {
      exact.emplace_back(name, p);
    }
  }
  out.exact = NameTable<const Pipeline*>(std::move(exact));
  out.services = NameTable<const Pipeline*>(std::move(services));
  return out;
}

}  // namespace

const DestinationConfig& BuiltInDefault() {
  static const DestinationConfig kDefault = [] {
    DestinationConfig d;
    d.retry_budget = TokenBucketBudgetOptions{};
    d.pipeline.stages.push_back(StageConfig::Of("retry"));
    return d;
  }();
  return kDefault;
}

Errors BuildSnapshot(const Config& config, const Snapshot* previous, const BuildEnv& env,
                     std::shared_ptr<const Snapshot>& out) {
  auto s = std::make_shared<Snapshot>();
  Errors errors;
  std::vector<std::pair<std::string, DestinationPipelines>> entries;
  for (const auto& [name, dest] : config.destinations) {
    const std::string path = ChildPath("destinations", name);
    const Components* before = nullptr;
    if (previous != nullptr) {
      if (auto it = previous->components.find(name); it != previous->components.end()) before = &it->second;
    }
    Components& c = s->components[name] = ObtainComponents(dest, before, env.components(), path, errors);
    DestinationBuild d{c, env, *s, errors};
    entries.emplace_back(name, BuildDestination(dest, d, path));
  }
  s->default_components = ObtainComponents(BuiltInDefault(), previous ? &previous->default_components : nullptr,
                                           env.components(), "built-in default", errors);
  DestinationBuild d{s->default_components, env, *s, errors};
  s->defaults = BuildDestination(BuiltInDefault(), d, "built-in default");
  if (!errors.empty()) return errors;
  s->destinations = NameTable<DestinationPipelines>(std::move(entries));
  out = std::move(s);
  return {};
}

void ApplyChaosSwitches(const Snapshot& s) {
  for (const auto& [name, c] : s.components) SwitchChaos(c.chaos);  // the built-in default has no chaos
}

void ApplyBreakerForces(const Snapshot& s, const Snapshot* previous, TimePoint now) {
  for (const auto& [name, c] : s.components) {  // the built-in default has no breaker
    const Components* before = nullptr;
    if (previous != nullptr) {
      if (auto it = previous->components.find(name); it != previous->components.end()) before = &it->second;
    }
    ApplyBreakerForce(c, before, now);
  }
}

}  // namespace stormguard::config::config_internal
