// src/config/registry_components.h: a destination's shared components, and
// how a reload keeps them.
//
// Each component is kept with the JSON form of its options (as a tree:
// comparing trees costs far less than writing text). A reload whose
// options for it are the same JSON hands the previous object (with its
// state: an open breaker, spent budget tokens, bulkhead occupancy, limiter
// tokens, a throttle's window) to the new pipelines; changed options get a fresh object.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json_io.h"
#include "registry_chaos.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

template <class T>
struct Shared {
  std::shared_ptr<T> component;  // null: not configured
  Json options;                  // their JSON form
};

struct Components {
  Shared<RetryBudget> budget;
  Shared<CircuitBreaker> breaker;
  std::optional<CircuitState> breaker_force;  // what the configuration forces it to (ApplyBreakerForce)
  Shared<Bulkhead> bulkhead;
  Shared<RateLimiter> rate_limiter;
  Shared<AdaptiveLimiter> adaptive;
  Shared<AdaptiveThrottle> throttle;
  Shared<GlobalRateLimiter> global_limit;
  std::vector<KeptChaos> chaos;  // one per chaos stage of the pipeline, in order
};

// What the registry makes components with.
struct ComponentEnv {
  Listener* listener = nullptr;    // guards and chaos policies report to it unless their options name one
  TimerService* timers = nullptr;  // moves a breaker with automatic_transition_from_open_to_half_open
  bool allow_chaos = false;        // RegistryOptions::allow_chaos
  // Makes a global_rate_limit's limiter with its store (Registry::MakeGlobalLimit).
  std::function<Result<std::shared_ptr<GlobalRateLimiter>>(GlobalRateLimiterOptions)> global_limits;
};

// `d`'s components and chaos policies, reusing `previous`'s (the same destination's in the
// configuration in force; may be null) where the options are unchanged.
// Errors are "path.component: reason".
Components ObtainComponents(const DestinationConfig& d, const Components* previous, const ComponentEnv& env,
                            const std::string& path, std::vector<std::string>& errors);

// Moves `c`'s breaker to the state its configuration forces, or back to
// closed when `before` (the configuration in force until now) forced the
// same breaker and this one does not. Only once a configuration is
// accepted: a refused one moves nothing.
void ApplyBreakerForce(const Components& c, const Components* before, TimePoint now);

}  // namespace stormguard::config::config_internal
