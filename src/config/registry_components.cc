// The shared components of a destination: created from their options, or
// kept from the previous configuration when their options are unchanged.
#include <utility>
#include <variant>

#include "json_io.h"
#include "registry_components.h"
#include "stormguard/config/config_json.h"

namespace stormguard::config::config_internal {
namespace {

Result<std::shared_ptr<RetryBudget>> MakeBudget(const BudgetOptions& options, Listener* /*listener*/) {
  return std::visit(
      [](const auto& o) -> Result<std::shared_ptr<RetryBudget>> {
        using O = std::decay_t<decltype(o)>;
        auto made = [&o] {
          if constexpr (std::is_same_v<O, TokenBucketBudgetOptions>) return TokenBucketBudget::Create(o);
          if constexpr (std::is_same_v<O, GrpcThrottleBudgetOptions>) return GrpcThrottleBudget::Create(o);
          if constexpr (std::is_same_v<O, RatioBudgetOptions>) return RatioBudget::Create(o);
          if constexpr (std::is_same_v<O, ConcurrencyBudgetOptions>) return ConcurrencyBudget::Create(o);
          if constexpr (std::is_same_v<O, FailureRateGateOptions>) return FailureRateGate::Create(o);
        }();
        if (!made.ok()) return std::move(made).status();
        return std::shared_ptr<RetryBudget>(std::move(made).value());
      },
      options);
}

// Guards report to the registry's listener unless their options name one.
template <class G, class O>
Result<std::shared_ptr<G>> MakeGuard(O options, Listener* listener) {
  if (options.listener == nullptr) options.listener = listener;
  return G::Create(options);
}

// The component's options in their JSON form: the configuration's own
// notion of equal options (what a file says), whatever the C++ struct holds
// besides (listeners, stripes).
template <class O>
std::string OptionsJson(std::optional<O> DestinationConfig::*field, const O& options) {
  Config only;
  (only.destinations[""].*field).emplace(options);
  return ToJson(only);
}

template <class T, class O, class Make>
Shared<T> Obtain(const std::optional<O>& options, std::optional<O> DestinationConfig::*field,
                 const Shared<T>* previous, Make make, Listener* listener, const std::string& path,
                 std::vector<std::string>& errors) {
  Shared<T> out;
  if (!options) return out;
  out.options = OptionsJson(field, *options);
  if (previous != nullptr && previous->component != nullptr && previous->options == out.options) {
    out.component = previous->component;
    return out;
  }
  auto made = make(*options, listener);
  if (!made.ok()) {
    errors.push_back(path + ": " + made.status().message());
    return out;
  }
  out.component = std::move(made).value();
  return out;
}

}  // namespace

Components ObtainComponents(const DestinationConfig& d, const Components* previous, Listener* listener,
                            const std::string& path, std::vector<std::string>& errors) {
  using D = DestinationConfig;
  const Components none;
  const Components& p = previous != nullptr ? *previous : none;
  // third_party_api needs a breaker; without a configured one it gets the
  // default breaker, kept across reloads like any other.
  std::optional<CircuitBreakerOptions> breaker = d.circuit_breaker;
  if (!breaker && d.pipeline.preset && d.pipeline.preset->kind == PresetKind::kThirdPartyApi) breaker.emplace();
  Components c;
  c.budget = Obtain(d.retry_budget, &D::retry_budget, &p.budget, MakeBudget, listener,
                    ChildPath(path, "retry_budget"), errors);
  c.breaker = Obtain(breaker, &D::circuit_breaker, &p.breaker, MakeGuard<CircuitBreaker, CircuitBreakerOptions>,
                     listener, ChildPath(path, "circuit_breaker"), errors);
  c.bulkhead = Obtain(d.bulkhead, &D::bulkhead, &p.bulkhead, MakeGuard<Bulkhead, BulkheadOptions>, listener,
                      ChildPath(path, "bulkhead"), errors);
  c.rate_limiter = Obtain(d.rate_limiter, &D::rate_limiter, &p.rate_limiter,
                          MakeGuard<RateLimiter, RateLimiterOptions>, listener, ChildPath(path, "rate_limiter"),
                          errors);
  c.adaptive = Obtain(d.adaptive_concurrency, &D::adaptive_concurrency, &p.adaptive,
                      MakeGuard<AdaptiveLimiter, AdaptiveLimiterOptions>, listener,
                      ChildPath(path, "adaptive_concurrency"), errors);
  return c;
}

}  // namespace stormguard::config::config_internal
