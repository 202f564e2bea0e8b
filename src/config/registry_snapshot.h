// src/config/registry_snapshot.h: one configuration, built into pipelines.
//
// A Snapshot is what the registry hands out: immutable once built, shared
// by every call that started on it. It owns the pipelines, the classifiers
// they point at, and each destination's shared components together with the
// JSON form of their options, so the next build can tell which components
// it may keep (same options: the same object, with its state).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "name_table.h"
#include "registry_components.h"
#include "stormguard/config/config.h"
#include "stormguard/exec/executor.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::config::config_internal {

// One destination's pipelines, in lookup order.
struct DestinationPipelines {
  NameTable<const Pipeline*> exact;     // "pkg.Svc/Get"
  NameTable<const Pipeline*> services;  // "pkg.Svc/" (the entry "pkg.Svc/*")
  const Pipeline* any = nullptr;        // the entry "*"
  const Pipeline* pipeline = nullptr;   // the destination's own

  const Pipeline& For(std::string_view method) const noexcept {
    if (const auto* p = exact.Find(method)) return **p;
    if (const std::size_t slash = method.rfind('/'); slash != std::string_view::npos) {
      if (const auto* p = services.Find(method.substr(0, slash + 1))) return **p;
    }
    return any != nullptr ? *any : *pipeline;
  }
};

struct Snapshot {
  NameTable<DestinationPipelines> destinations;
  DestinationPipelines defaults;  // destinations the configuration does not name
  std::map<std::string, Components, std::less<>> components;
  Components default_components;
  std::vector<PipelineRef> pipelines;  // fixed handles; the tables point into them
  std::vector<std::unique_ptr<const Classifier>> classifiers;

  const Pipeline& Find(std::string_view destination, std::string_view method) const noexcept {
    const DestinationPipelines* d = destinations.Find(destination);
    return (d != nullptr ? *d : defaults).For(method);
  }
};

struct BuildEnv {
  PipelineOptions pipeline;
  // Runs hedged attempts; called only when a pipeline hedges.
  std::function<std::shared_ptr<Executor>()> executor;
  bool allow_chaos = false;  // RegistryOptions::allow_chaos
  std::function<Result<std::shared_ptr<GlobalRateLimiter>>(GlobalRateLimiterOptions)> global_limits;

  ComponentEnv components() const {
    return {.listener = pipeline.listener,
            .timers = pipeline.timers != nullptr ? pipeline.timers : &TimerService::Default(),
            .allow_chaos = allow_chaos,
            .global_limits = global_limits};
  }
};

// The destination unknown names get: see registry.h.
const DestinationConfig& BuiltInDefault();

// Builds `config`, keeping `previous`'s components whose options are
// unchanged. Every error is "json.path: reason"; none: `out` is set.
std::vector<std::string> BuildSnapshot(const Config& config, const Snapshot* previous, const BuildEnv& env,
                                       std::shared_ptr<const Snapshot>& out);

// Switches every chaos policy `s` kept from the previous configuration to the
// enabled and rate `s` asks for; called once `s` is accepted.
void ApplyChaosSwitches(const Snapshot& s);
// Each destination's breaker force (ApplyBreakerForce), against `previous`,
// the snapshot in force until now (null: none).
void ApplyBreakerForces(const Snapshot& s, const Snapshot* previous, TimePoint now);

}  // namespace stormguard::config::config_internal
