// stormguard/config/registry.h: the pipelines of a configuration, by
// destination and method, swapped whole when the configuration changes.
//
//   Registry registry({.on_reload = [](const ReloadEvent& e) { Log(e); }});
//   Status s = registry.Apply(file_text, "/etc/app/stormguard.json");
//   PipelineRef p = registry.Get("inventory", "GET /stock");
//   Result<Stock> r = p->Execute(ctx, [&](CallContext& c) { return inventory.Get(c); });
//
// Lookup, Get(destination, method): for a destination the configuration
// names, the method entry found in gRPC's order (the exact name, then the
// name's "service/*", then "*"; config.h, FindMethod), else the
// destination's own pipeline. For any other destination, the BUILT-IN
// DEFAULT: a retry with RetryOptions' defaults (3 attempts, exponential
// backoff from 100ms capped at 10s with full jitter, transient failures
// only, never an ambiguous outcome of a non-idempotent call) limited by a
// token-bucket retry budget with its defaults (10 tokens, 0.1 earned per
// success). One budget serves every unnamed destination, so they can at
// worst take each other's retries, never each other's calls.
//
// Components: a destination's retry budget, breaker, bulkhead, rate limiter
// and adaptive limiter are created once per configuration and shared by its
// pipeline and every method's. A reload keeps a component (and so its
// state: an open breaker, spent tokens, slots in use) when its options are
// unchanged, compared in their JSON form; changed options get a fresh one.
// A preset third_party_api without a configured breaker gets the default
// breaker, kept the same way. Other per-pipeline state (a hedge's latency
// tracker) starts afresh with each accepted configuration. A chaos stage
// (refused unless RegistryOptions::allow_chaos) keeps its policy when a
// reload changes only its `enabled` and `rate`: the same policy, switched
// once the new configuration is accepted (a refused one switches nothing),
// so it applies from the next call on the old pipelines too; any other
// change of its options makes a fresh policy.
//
// Reload: Apply parses, validates and builds everything off the call path,
// then swaps the whole registry at once; Get never waits for a build (the
// first Get on each thread after a swap takes a lock held only for a
// pointer swap). A call in
// flight keeps the pipeline it got (the handle owns it, whichever thread
// ends the call, even after the registry is gone). Any error changes nothing: the configuration in force
// stays, and the listener and counters record the rejection. Reject() does
// the same for a source that could not even read a configuration. A
// registry without any accepted configuration runs on the built-in default
// for every destination, and says so (on_defaults(), and the first event).
//
// Cost: Get on a thread that has called it since the last reload compares
// the names with the ones its thread asked for last (a copy of them, by
// content) and, when they differ, hashes the two names and probes two small
// tables; then it adds one to its thread's own reference with a plain
// store; releasing the handle is one atomic
// decrement on that thread's cache line (pipeline_ref.h). No counter is
// shared between threads, so Get scales with threads, and it never
// allocates. The first Get on a thread after a reload allocates that
// thread's reference, and retires the one it held before (freeing the old
// configuration there if no handle holds it): a thread that stops calling
// keeps the configuration it last used alive until the registry goes. Up to
// kThreadSlots threads at once get a reference each; threads beyond that
// share one reference, counted atomically.
//
// Thread safety: Get, Stats and the queries from any thread, concurrently
// with Apply and Reject (which serialise among themselves). The listener
// runs inside Apply/Reject, one event at a time, and must not call them.
// The registry must outlive every Get, but not the handles it returned.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stormguard/config/config.h"
#include "stormguard/core/status.h"
#include "stormguard/exec/executor.h"
#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard::config {

namespace config_internal {
struct BuildEnv;
struct Snapshot;
struct Holder;
class ReplicaSets;
}  // namespace config_internal

struct ReloadEvent {
  std::string_view origin;  // what the caller named the source: a path, an etcd key
  bool accepted = false;
  std::uint64_t version = 0;               // in force after this event; 0: the built-in default
  bool on_defaults = true;                 // no configuration was ever accepted
  const std::vector<std::string>& errors;  // a rejection's reasons, each "json.path: reason"
};

struct RegistryStats {
  std::uint64_t accepted = 0;  // configurations applied
  std::uint64_t rejected = 0;  // configurations refused, and Reject() calls
  std::uint64_t version = 0;   // the configuration in force, counted from 1; 0: the built-in default
  bool on_defaults = true;
};

struct RegistryOptions {
  // Clock, timers, listener and classifier of every pipeline; the timers
  // (null: TimerService::Default()) also move breakers that have
  // automatic_transition_from_open_to_half_open, and must outlive them.
  PipelineOptions pipeline;
  // Runs hedged attempts; null: the registry makes one the first time a
  // configuration hedges.
  std::shared_ptr<Executor> hedge_executor;
  std::function<void(const ReloadEvent&)> on_reload;  // optional
  // Whether a configuration may bring chaos stages (fault injection). Off,
  // one that does is refused like any invalid one ("destinations.d.
  // pipeline.stages[1]: chaos from configuration is not allowed in this
  // process (RegistryOptions::allow_chaos)"): whoever can write the watched
  // file or key must not be able to make a process fail its calls unless
  // the process chose, when it started, to rehearse failures.
  bool allow_chaos = false;
  // Fleet-wide limits ("global_rate_limit", docs/fleet-limits.md). Where
  // their shares live is the program's choice, never the configuration's
  // (whoever writes the watched key must not point the fleet at another
  // Redis, nor read its password): the factory makes each limiter's store,
  // called once per limiter the registry creates (a new limit, or changed
  // options), with the options it will have. The Redis adapter has one:
  // redis::LeaseStoresIn(options). Null: a configuration with a
  // global_rate_limit is refused.
  LeaseStoreFactory lease_stores;
  // This process among the fleet's instances, for every limit; empty:
  // "<host name>-<pid>".
  std::string instance_id;
  // Runs the limits' refreshes (each may block up to its store's timeouts);
  // null: the registry makes one with one worker the first time a
  // configuration brings a limit. Its timers schedule the refreshes.
  std::shared_ptr<Executor> lease_executor;
};

class Registry final : public PipelineSource {
 public:
  static constexpr int kThreadSlots = 64;

  // On the built-in default (reported to on_reload as version 0).
  explicit Registry(RegistryOptions options = {});
  ~Registry();  // not virtual: PipelineSource is never deleted through
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // The pipeline in force, for one call: a fixed handle, never empty; see
  // the lookup order above.
  PipelineRef Get(std::string_view destination, std::string_view method = {}) const;
  PipelineRef Resolve(std::string_view destination, std::string_view method) const override;
  // A live handle: each call through it runs on Get(destination, method)
  // as of its start (pipeline_ref.h). The registry must outlive its calls.
  PipelineRef Follow(std::string destination, std::string method = {}) const {
    return PipelineRef::Follow(*this, std::move(destination), std::move(method));
  }

  // OK, or INVALID_ARGUMENT "invalid config: e1; e2" with every error.
  Status Apply(std::string_view text, std::string_view origin);
  Status Apply(const Config& config, std::string_view origin);
  // A source that could not produce a configuration: counted and reported
  // like an invalid one; nothing changes.
  void Reject(const Status& why, std::string_view origin);

  // The replicas of `destination` (docs/fleet.md): one set for the
  // registry's life, made by the first accepted configuration that gives
  // the destination "replicas", null before. Each accepted configuration
  // updates it in place (endpoints keep their load and verdicts): its
  // picker and outlier detection, and its endpoints when it lists them
  // (when it does not, discovery owns them). A configuration without the
  // destination's "replicas" empties it. Its events go to the pipelines'
  // listener. Give it to a client (HttpClientOptions::replicas).
  std::shared_ptr<ReplicaSet> Replicas(std::string_view destination) const;

  RegistryStats Stats() const noexcept;
  bool on_defaults() const noexcept { return Stats().on_defaults; }
  std::uint64_t version() const noexcept { return Stats().version; }

 private:
  struct Slot;
  using Holder = config_internal::Holder;
  using Snapshot = config_internal::Snapshot;

  void Refresh(Slot& slot) const;
  // A pipeline and the reference that already counts one handle of it.
  using Counted = std::pair<const Pipeline*, PipelineRefCount*>;
  Counted GetAndRemember(std::string_view destination, std::string_view method) const;
  Counted GetShared(std::string_view destination, std::string_view method) const;

  Status Refuse(std::vector<std::string> errors, std::string_view origin);
  void Report(std::string_view origin, bool accepted, const std::vector<std::string>& errors);
  std::shared_ptr<Executor> HedgeExecutor();
  // A limiter of a configuration's "global_rate_limit" (registry_global_limits.cc).
  Result<std::shared_ptr<GlobalRateLimiter>> MakeGlobalLimit(GlobalRateLimiterOptions options);
  config_internal::BuildEnv Env();

  RegistryOptions options_;
  std::unique_ptr<Slot[]> slots_;  // one per thread index; written only by its thread
  // Bumped after each swap: a thread whose slot holds an older one refreshes it.
  std::atomic<std::uint64_t> generation_{1};
  mutable std::mutex current_mu_;  // guards current_ and shared_, and pairs them with generation_
  std::shared_ptr<const Snapshot> current_;
  Holder* shared_ = nullptr;  // current_'s reference for threads beyond the slots
  std::mutex apply_mu_;       // serialises Apply and Reject
  std::unique_ptr<config_internal::ReplicaSets> replica_sets_;
  std::atomic<std::uint64_t> accepted_{0}, rejected_{0}, version_{0};
};

}  // namespace stormguard::config
