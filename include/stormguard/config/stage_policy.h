// stormguard/config/stage_policy.h: a pipeline stage as the configuration
// knows it, and the registration that makes a policy configurable.
//
// Every stage a configuration can name ("retry", "circuit_breaker", or one
// of a program's own) is a StagePolicy registered by name: how its options
// read from JSON and write back (for `config show`), where it may sit, and
// how it is added to a pipeline. The reader, the writer, the registry and
// `config show` look policies up by name; none of them lists the stages.
// The library's own register themselves the first time any is looked up;
// a program registers its own before it parses a configuration:
//
//   const PolicyId quota_id = RegisterPolicyName("quota").value();  // its events' policy
//   RegisterStagePolicy({
//       .name = "quota",
//       .read = [](const nlohmann::json& j, const std::string& path, std::vector<std::string>& errors) {
//         QuotaOptions o;   // "per_window" from j, or an error naming path + ".per_window"
//         ...
//         return std::any(o);
//       },
//       .write = [](const std::any& o) { return nlohmann::json{{"per_window", std::any_cast<QuotaOptions>(o).n}}; },
//       .build = [](const std::any& o, StageBuildContext& ctx) {
//         ctx.builder.Add(std::make_shared<QuotaStage>(std::any_cast<const QuotaOptions&>(o)));
//       },
//       .metric_families = {{.name = "stormguard_quota_rejected_total", .help = "Calls the quota refused.",
//                            .policy = quota_id, .kinds = {EventKind::kRejected}}},
//   });
//   // {"stages": [{"quota": {"per_window": 100}}, "retry"...]} now parses, builds and shows,
//   // and a MetricsListener scrapes stormguard_quota_rejected_total.
//
// A policy without options (read unset) is named by a string:
// "require_idempotency_key". StageConfig holds one stage: its policy and
// that policy's options, as the policy's own type (RetryConfig for "retry").
//
// Thread safety: registration takes a lock and may happen at any time; a
// registered policy is never removed or changed, so its pointer stays valid.
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/status.h"
#include "stormguard/metrics/metric_family.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/pipeline/stage_placement.h"

namespace stormguard::config {

struct StagePolicy;

namespace config_internal {
struct DestinationBuild;  // the library's own policies reach the destination's components through it
}  // namespace config_internal

// One stage of a configured pipeline.
class StageConfig {
 public:
  StageConfig() = default;  // no policy: not a stage until assigned
  StageConfig(const StagePolicy& policy, std::any options) : policy_(&policy), options_(std::move(options)) {}

  // The registered policy `name` with its default options, or with `options`
  // (the policy's options type). Throws std::invalid_argument for a name no
  // policy has: a program's own mistake, not a configuration's.
  static StageConfig Of(std::string_view name);
  static StageConfig Of(std::string_view name, std::any options);

  const StagePolicy* policy() const noexcept { return policy_; }
  // The policy's name ("retry"), empty for no policy.
  std::string_view kind() const noexcept;
  bool Is(std::string_view kind) const noexcept { return policy_ != nullptr && this->kind() == kind; }

  // The options as the policy's type, or null when they are of another type.
  template <class T>
  const T* options() const noexcept {
    return std::any_cast<T>(&options_);
  }
  template <class T>
  T* options() noexcept {
    return std::any_cast<T>(&options_);
  }
  const std::any& any_options() const noexcept { return options_; }

 private:
  const StagePolicy* policy_ = nullptr;
  std::any options_;
};

// What a policy's build step may use while one pipeline is built.
struct StageBuildContext {
  PipelineBuilder& builder;
  const std::string& path;                                // the stage's JSON path, for errors
  std::vector<std::string>& errors;                       // "path: reason"; any error refuses the configuration
  const PipelineOptions& pipeline;                        // the registry's listener, clock and timers
  config_internal::DestinationBuild* internal = nullptr;  // the library's own policies only
};

struct StagePolicy {
  // The stage's key in JSON and its name in errors: [a-z0-9_], 1-64 bytes.
  std::string name;
  // Options as the policy's own type, default-valued (StageConfig::Of).
  std::any defaults;
  // Reads the options of {"name": {...}}; reports every problem as
  // "path.field: reason" into errors. Unset: the stage takes no options and
  // is written as the string "name".
  std::function<std::any(const nlohmann::json& options, const std::string& path, std::vector<std::string>& errors)>
      read;
  // The options as JSON, read back by `read` to the same value.
  std::function<nlohmann::json(const std::any& options)> write;
  // Where the stage may sit (pipeline/stage_placement.h). Unset: anywhere.
  std::function<StagePlacement(const std::any& options)> placement;
  // Adds the stage to ctx.builder, or reports why it cannot into ctx.errors.
  std::function<void(const std::any& options, StageBuildContext& ctx)> build;
  // Non-empty: the stage uses the destination's shared component of this
  // name ("circuit_breaker"), which the destination must configure.
  std::string shared_component;
  // The Prometheus families its events feed (metrics/metric_family.h),
  // registered with it: every MetricsListener exposes them.
  std::vector<MetricFamily> metric_families;
};

// Registers `policy`, and its metric families. INVALID_ARGUMENT for a bad
// name, a missing build, a read without a write, a bad metric family;
// ALREADY_EXISTS for a name taken (a policy's, or a different family's).
Status RegisterStagePolicy(StagePolicy policy);
// The policy named `name`, or null.
const StagePolicy* FindStagePolicy(std::string_view name) noexcept;
// Every registered policy, in registration order (the library's own first).
std::vector<const StagePolicy*> StagePolicies();

// Where `stage` may sit: its policy's rule for its options.
StagePlacement PlacementOf(const StageConfig& stage);

}  // namespace stormguard::config
