// The JSON form of a destination's shared components: what a destination
// and a preset's "components" write and read.
#include "destination_json.h"
#include "json_fields.h"
#include "stormguard/config/preset.h"

namespace stormguard::config::config_internal {
namespace {

constexpr std::string_view kBudgetNames[] = {"token_bucket", "grpc_throttle", "ratio", "concurrency",
                                             "failure_rate_gate"};

void ReadBudget(const Json& j, const std::string& path, Errors& errors, std::optional<BudgetOptions>& out) {
  const auto* kv =
      OneKey(j, path, "the budget's kind: token_bucket, grpc_throttle, ratio, concurrency or failure_rate_gate",
             errors);
  if (kv == nullptr) return;
  const std::string inner = ChildPath(path, kv->first);
  for (std::size_t i = 0; i < std::size(kBudgetNames); ++i) {
    if (kv->first != kBudgetNames[i]) continue;
    switch (i) {
      case 0: Read(kv->second, inner, errors, out.emplace().emplace<0>()); return;
      case 1: Read(kv->second, inner, errors, out.emplace().emplace<1>()); return;
      case 2: Read(kv->second, inner, errors, out.emplace().emplace<2>()); return;
      case 3: Read(kv->second, inner, errors, out.emplace().emplace<3>()); return;
      default: Read(kv->second, inner, errors, out.emplace().emplace<4>()); return;
    }
  }
  errors.push_back(inner +
                   ": unknown budget (use token_bucket, grpc_throttle, ratio, concurrency or failure_rate_gate)");
}

Json WriteBudget(const BudgetOptions& b) {
  Json out = Json::object();
  std::visit([&](const auto& o) { out[std::string(kBudgetNames[b.index()])] = Write(o); }, b);
  return out;
}

// An operator's force: the two states a configuration may hold a breaker in.
std::optional<CircuitState> ReadForce(const Json& j, const std::string& path, Errors& errors) {
  if (j.is_string() && j == "forced_open") return CircuitState::kForcedOpen;
  if (j.is_string() && j == "disabled") return CircuitState::kDisabled;
  errors.push_back(path + ": must be \"forced_open\" or \"disabled\" (leave it out to let the breaker judge)");
  return std::nullopt;
}

// The breaker's fields, wait_in_open_backoff (options made into a Backoff)
// and the operator's force, which is not one of the breaker's options.
void ReadBreaker(const Json& j, const std::string& path, Errors& errors, CircuitBreakerOptions& o,
                 std::optional<CircuitState>& force) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  Fields(r, o);
  if (const Json* f = r.Take("force")) force = ReadForce(*f, ChildPath(path, "force"), errors);
  if (const Json* b = r.Take("wait_in_open_backoff")) {
    BackoffOptions backoff;
    const std::string inner = ChildPath(path, "wait_in_open_backoff");
    const std::size_t before = errors.size();
    Read(*b, inner, errors, backoff);
    Nest(errors, inner, backoff.Validate());
    if (errors.size() == before) o.wait_in_open_backoff = *Backoff::Create(backoff);
  }
  r.Finish();
  Nest(errors, path, o.Validate());
}

Json WriteBreaker(const CircuitBreakerOptions& o) {
  Json out = Write(o);
  if (o.wait_in_open_backoff) out["wait_in_open_backoff"] = Write(o.wait_in_open_backoff->options());
  return out;
}

}  // namespace

void ReadComponents(ObjectReader& r, DestinationConfig& d) {
  const std::string& path = r.path();
  Errors& errors = r.errors();
  if (const Json* v = r.Take("retry_budget")) {
    ReadBudget(*v, ChildPath(path, "retry_budget"), errors, d.retry_budget);
  }
  if (const Json* v = r.Take("circuit_breaker")) {
    ReadBreaker(*v, ChildPath(path, "circuit_breaker"), errors, d.circuit_breaker.emplace(), d.circuit_breaker_force);
  }
  r.Field("bulkhead", d.bulkhead);
  r.Field("rate_limiter", d.rate_limiter);
  r.Field("adaptive_concurrency", d.adaptive_concurrency);
  r.Field("adaptive_throttle", d.adaptive_throttle);
  r.Field("global_rate_limit", d.global_rate_limit);
}

DestinationConfig ReadComponents(const Json& j, const std::string& path, Errors& errors) {
  DestinationConfig d;
  ObjectReader r(j, path, errors);
  if (!r.ok()) return d;
  ReadComponents(r, d);
  r.Finish();
  return d;
}

Json WriteComponents(const DestinationConfig& d) {
  Json out = Json::object();
  if (d.retry_budget) out["retry_budget"] = WriteBudget(*d.retry_budget);
  if (d.circuit_breaker) out["circuit_breaker"] = WriteBreaker(*d.circuit_breaker);
  if (d.circuit_breaker && d.circuit_breaker_force) {
    out["circuit_breaker"]["force"] = std::string(CircuitStateName(*d.circuit_breaker_force));
  }
  if (d.bulkhead) out["bulkhead"] = Write(*d.bulkhead);
  if (d.rate_limiter) out["rate_limiter"] = Write(*d.rate_limiter);
  if (d.adaptive_concurrency) out["adaptive_concurrency"] = Write(*d.adaptive_concurrency);
  if (d.adaptive_throttle) out["adaptive_throttle"] = Write(*d.adaptive_throttle);
  if (d.global_rate_limit) out["global_rate_limit"] = Write(*d.global_rate_limit);
  return out;
}

bool HasComponent(const DestinationConfig& d, std::string_view name) { return WriteComponents(d).contains(name); }

DestinationConfig ComponentsOf(const DestinationConfig& d) {
  DestinationConfig only;
  only.retry_budget = d.retry_budget;
  only.circuit_breaker = d.circuit_breaker;
  only.circuit_breaker_force = d.circuit_breaker_force;
  only.bulkhead = d.bulkhead;
  only.rate_limiter = d.rate_limiter;
  only.adaptive_concurrency = d.adaptive_concurrency;
  only.adaptive_throttle = d.adaptive_throttle;
  only.global_rate_limit = d.global_rate_limit;
  return only;
}

}  // namespace stormguard::config::config_internal

namespace stormguard::config {

std::vector<std::string> AddPresetComponents(DestinationConfig& d, const PresetStages& preset) {
  std::vector<std::string> added;
  const auto take = [&](auto& mine, const auto& brought, const char* name) {
    if (mine || !brought) return;
    mine = brought;
    added.emplace_back(name);
  };
  const DestinationConfig& b = preset.components;
  take(d.retry_budget, b.retry_budget, "retry_budget");
  take(d.circuit_breaker, b.circuit_breaker, "circuit_breaker");
  take(d.bulkhead, b.bulkhead, "bulkhead");
  take(d.rate_limiter, b.rate_limiter, "rate_limiter");
  take(d.adaptive_concurrency, b.adaptive_concurrency, "adaptive_concurrency");
  take(d.adaptive_throttle, b.adaptive_throttle, "adaptive_throttle");
  take(d.global_rate_limit, b.global_rate_limit, "global_rate_limit");
  return added;
}

}  // namespace stormguard::config
