// The shared components of a destination: created from their options, or
// kept from the previous configuration when their options are unchanged.
#include <utility>
#include <variant>

#include "destination_json.h"
#include "registry_components.h"
#include "stormguard/config/budget_factory.h"
#include "stormguard/config/preset.h"

namespace stormguard::config::config_internal {
namespace {

Result<std::shared_ptr<RetryBudget>> MakeBudget(const BudgetOptions& options, const ComponentEnv& /*env*/) {
  return config::MakeBudget(options);
}

// Guards report to the registry's listener unless their options name one.
template <class G, class O>
Result<std::shared_ptr<G>> MakeGuard(O options, const ComponentEnv& env) {
  if (options.listener == nullptr) options.listener = env.listener;
  return G::Create(options);
}

// A breaker from JSON names no timers: its automatic transition runs on the
// registry's, which its pipelines' other timers use too.
Result<std::shared_ptr<CircuitBreaker>> MakeBreaker(CircuitBreakerOptions options, const ComponentEnv& env) {
  if (options.timers == nullptr) options.timers = env.timers;
  return MakeGuard<CircuitBreaker>(std::move(options), env);
}

// The registry gives the limiter its store, instance, clock and refreshes.
Result<std::shared_ptr<GlobalRateLimiter>> MakeGlobalLimit(const GlobalRateLimiterOptions& options,
                                                           const ComponentEnv& env) {
  if (!env.global_limits) return Status::FailedPrecondition("this registry makes no fleet-wide limits");
  return env.global_limits(options);
}

// `written` holds the options of every component of the destination in
// their JSON form: the configuration's own notion of equal options (what a
// file says), whatever the C++ struct holds besides (listeners, stripes).
template <class T, class O, class Make>
Shared<T> Obtain(const std::optional<O>& options, const Json& written, std::string_view key, const Shared<T>* previous,
                 Make make, const ComponentEnv& env, const std::string& path, std::vector<std::string>& errors) {
  Shared<T> out;
  if (!options) return out;
  out.options = written.at(std::string(key));
  if (previous != nullptr && previous->component != nullptr && previous->options == out.options) {
    out.component = previous->component;
    return out;
  }
  auto made = make(*options, env);
  if (!made.ok()) {
    errors.push_back(ChildPath(path, key) + ": " + made.status().message());
    return out;
  }
  out.component = std::move(made).value();
  return out;
}

}  // namespace

Components ObtainComponents(const DestinationConfig& d, const Components* previous, const ComponentEnv& env,
                            const std::string& path, std::vector<std::string>& errors) {
  DestinationConfig only = ComponentsOf(d);  // the components alone: their JSON form is all that is compared
  // A preset may bring components the destination lacks (third_party_api's
  // breaker), kept across reloads like any other.
  if (d.pipeline.preset) {
    if (Result<PresetStages> preset = ExpandPreset(*d.pipeline.preset); preset.ok()) {
      AddPresetComponents(only, *preset);
    }
  }
  only.circuit_breaker_force.reset();  // a force moves the breaker it has; it makes no fresh one
  const Json written = WriteComponents(only);
  const Components none;
  const Components& p = previous != nullptr ? *previous : none;
  Components c;
  c.budget = Obtain(only.retry_budget, written, "retry_budget", &p.budget, MakeBudget, env, path, errors);
  c.breaker = Obtain(only.circuit_breaker, written, "circuit_breaker", &p.breaker, MakeBreaker, env, path, errors);
  c.breaker_force = d.circuit_breaker_force;
  c.bulkhead =
      Obtain(only.bulkhead, written, "bulkhead", &p.bulkhead, MakeGuard<Bulkhead, BulkheadOptions>, env, path, errors);
  c.rate_limiter = Obtain(only.rate_limiter, written, "rate_limiter", &p.rate_limiter,
                          MakeGuard<RateLimiter, RateLimiterOptions>, env, path, errors);
  c.adaptive = Obtain(only.adaptive_concurrency, written, "adaptive_concurrency", &p.adaptive,
                      MakeGuard<AdaptiveLimiter, AdaptiveLimiterOptions>, env, path, errors);
  c.throttle = Obtain(only.adaptive_throttle, written, "adaptive_throttle", &p.throttle,
                      MakeGuard<AdaptiveThrottle, AdaptiveThrottleOptions>, env, path, errors);
  c.global_limit =
      Obtain(only.global_rate_limit, written, "global_rate_limit", &p.global_limit, MakeGlobalLimit, env, path, errors);
  c.chaos = ObtainChaos(d, p.chaos, {.listener = env.listener, .allowed = env.allow_chaos}, path, errors);
  return c;
}

void ApplyBreakerForce(const Components& c, const Components* before, TimePoint now) {
  CircuitBreaker* breaker = c.breaker.component.get();
  if (breaker == nullptr) return;
  if (c.breaker_force) {
    // Every state may move to forced_open and to disabled (CircuitTransitionAllowed).
    (void)(*c.breaker_force == CircuitState::kForcedOpen ? breaker->TransitionToForcedOpen(now)
                                                         : breaker->TransitionToDisabled(now));
    return;
  }
  const bool lifted = before != nullptr && before->breaker.component.get() == breaker && before->breaker_force;
  if (lifted && breaker->state() == *before->breaker_force) (void)breaker->TransitionToClosed(now);
}

}  // namespace stormguard::config::config_internal
