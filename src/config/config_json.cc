#include "stormguard/config/config_json.h"

#include "destination_json.h"
#include "grpc_service_config_reader.h"
#include "json_document.h"
#include "json_fields.h"
#include "stormguard/core/validation.h"

namespace stormguard::config {
namespace config_internal {

void CheckPresetAttempts(ObjectReader& r, int max_attempts) {
  Nest(r.errors(), r.path(), RetryOptions{.max_attempts = max_attempts}.Validate());
}

void CheckPresetTimeout(ObjectReader& r, std::string_view field, Duration timeout) {
  for (const std::string& e : TimeoutOptions{.timeout = timeout}.Validate()) {
    // "timeout: must be positive" -> "<field>: must be positive"
    r.errors().push_back(ChildPath(r.path(), field) + e.substr(e.find(':')));
  }
}

namespace {

constexpr std::string_view kBudgetNames[] = {"token_bucket", "grpc_throttle", "ratio", "concurrency",
                                             "failure_rate_gate"};
constexpr PresetKind kPresetKinds[] = {PresetKind::kUserFacing, PresetKind::kBackgroundJob,
                                       PresetKind::kThirdPartyApi, PresetKind::kPayment,
                                       PresetKind::kHighFanOut};

// The one key of a {"kind": {...}} object, or null after reporting.
const Json::object_t::value_type* OneKey(const Json& j, const std::string& path, std::string_view what,
                                         Errors& errors) {
  if (!j.is_object() || j.size() != 1) {
    errors.push_back(path + ": must be an object with exactly one key, " + std::string(what));
    return nullptr;
  }
  return &*j.get_ref<const Json::object_t&>().begin();
}

// ---- shared components

void ReadBudget(const Json& j, const std::string& path, Errors& errors, std::optional<BudgetOptions>& out) {
  const auto* kv = OneKey(
      j, path, "the budget's kind: token_bucket, grpc_throttle, ratio, concurrency or failure_rate_gate",
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
  errors.push_back(
      inner + ": unknown budget (use token_bucket, grpc_throttle, ratio, concurrency or failure_rate_gate)");
}

Json WriteBudget(const BudgetOptions& b) {
  Json out = Json::object();
  std::visit([&](const auto& o) { out[std::string(kBudgetNames[b.index()])] = Write(o); }, b);
  return out;
}

// The breaker's fields, and wait_in_open_backoff: options made into a Backoff.
void ReadBreaker(const Json& j, const std::string& path, Errors& errors, CircuitBreakerOptions& o) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  Fields(r, o);
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

// ---- the pipeline

// An order PipelineBuilder::Build() would refuse, by its own rule, at the
// offending stage's path.
void CheckStageOrder(const std::vector<StageConfig>& stages, const std::string& path, Errors& errors) {
  std::vector<StagePlacement> placements;
  for (const StageConfig& s : stages) placements.push_back(PlacementOf(s));
  for (const PlacementError& e : CheckPlacements(placements)) {
    errors.push_back(IndexPath(path, e.index) + ": " + e.reason);
  }
}

// "use fallback, ... as {"kind": {options}}, or require_idempotency_key, ... as a string".
std::string StageNames() {
  std::string with_options, bare;
  for (const StagePolicy* p : StagePolicies()) {
    std::string& list = p->read ? with_options : bare;
    list += (list.empty() ? "" : ", ") + p->name;
  }
  return "use " + with_options + " as {\"kind\": {options}}, or " + bare + " as a string";
}

// A policy's reader is a program's code: what it throws is an error at its path.
std::any ReadPolicyOptions(const StagePolicy& p, const Json& j, const std::string& path, Errors& errors) {
  try {
    std::any options = p.read(j, path, errors);
    if (options.type() != p.defaults.type() && p.defaults.has_value()) {
      errors.push_back(path + ": the " + p.name + " policy read options of another type than its defaults");
    }
    return options;
  } catch (const std::exception& e) {
    errors.push_back(path + ": could not be read (" + std::string(e.what()).substr(0, 200) + ")");
    return p.defaults;
  }
}

// `known` is false when the stage's kind could not be read.
StageConfig ReadStage(const Json& j, const std::string& path, Errors& errors, bool& known) {
  known = false;
  if (j.is_string()) {
    const StagePolicy* p = FindStagePolicy(j.get_ref<const std::string&>());
    if (p == nullptr || p->read) {
      errors.push_back(path + ": unknown stage (" + StageNames() + ")");
      return {};
    }
    known = true;
    return StageConfig(*p, p->defaults);
  }
  const auto* kv = OneKey(j, path, "the stage's kind (" + StageNames() + ")", errors);
  if (kv == nullptr) return {};
  const std::string inner = ChildPath(path, kv->first);
  const StagePolicy* p = FindStagePolicy(kv->first);
  if (p == nullptr || !p->read) {
    errors.push_back(inner + ": unknown stage (" + StageNames() + ")");
    return {};
  }
  known = true;
  return StageConfig(*p, ReadPolicyOptions(*p, kv->second, inner, errors));
}

Json WriteStage(const StageConfig& s) {
  const StagePolicy& p = *s.policy();
  if (!p.read) return p.name;
  return {{p.name, p.write(s.any_options())}};
}

void ReadPreset(const Json& j, const std::string& path, Errors& errors, PresetConfig& p) {
  switch (p.kind) {
    case PresetKind::kUserFacing: return Read(j, path, errors, p.user_facing);
    case PresetKind::kBackgroundJob: return Read(j, path, errors, p.background_job);
    case PresetKind::kThirdPartyApi: return Read(j, path, errors, p.third_party_api);
    case PresetKind::kPayment: return Read(j, path, errors, p.payment);
    case PresetKind::kHighFanOut: return Read(j, path, errors, p.high_fan_out);
  }
}

Json WritePreset(const PresetConfig& p) {
  switch (p.kind) {
    case PresetKind::kUserFacing: return Write(p.user_facing);
    case PresetKind::kBackgroundJob: return Write(p.background_job);
    case PresetKind::kThirdPartyApi: return Write(p.third_party_api);
    case PresetKind::kPayment: return Write(p.payment);
    case PresetKind::kHighFanOut: return Write(p.high_fan_out);
  }
  return Json::object();
}

void ReadPipeline(const Json& j, const std::string& path, Errors& errors, PipelineConfig& out) {
  const auto* kv = OneKey(j, path, "\"stages\" or a preset", errors);
  if (kv == nullptr) return;
  const std::string inner = ChildPath(path, kv->first);
  if (kv->first == "stages") {
    if (!kv->second.is_array() || kv->second.size() > kMaxListItems) {
      errors.push_back(inner + ": must be an array of at most " + std::to_string(kMaxListItems) + " stages");
      return;
    }
    bool all_known = true;
    for (std::size_t i = 0; i < kv->second.size(); ++i) {
      bool known = false;
      out.stages.push_back(ReadStage(kv->second[i], IndexPath(inner, i), errors, known));
      all_known = all_known && known;
    }
    if (all_known) CheckStageOrder(out.stages, inner, errors);
    return;
  }
  for (PresetKind k : kPresetKinds) {
    if (PresetKindName(k) != kv->first) continue;
    out.preset.emplace().kind = k;
    ReadPreset(kv->second, inner, errors, *out.preset);
    return;
  }
  errors.push_back(inner +
                   ": unknown pipeline (use stages, user_facing, background_job, third_party_api, "
                   "payment or high_fan_out)");
}

Json WritePipeline(const PipelineConfig& p) {
  if (p.preset) return {{std::string(PresetKindName(p.preset->kind)), WritePreset(*p.preset)}};
  Json stages = Json::array();
  for (const StageConfig& s : p.stages) stages.push_back(WriteStage(s));
  return {{"stages", std::move(stages)}};
}

// Whether the destination configures its shared component `name`.
bool HasComponent(const DestinationConfig& d, std::string_view name) {
  if (name == "circuit_breaker") return d.circuit_breaker.has_value();
  if (name == "bulkhead") return d.bulkhead.has_value();
  if (name == "rate_limiter") return d.rate_limiter.has_value();
  if (name == "adaptive_concurrency") return d.adaptive_concurrency.has_value();
  return name == "retry_budget" && d.retry_budget.has_value();
}

// Every stage that names a shared component finds it configured.
void CheckSharedStages(const DestinationConfig& d, const std::string& path, Errors& errors) {
  for (std::size_t i = 0; i < d.pipeline.stages.size(); ++i) {
    const StagePolicy* p = d.pipeline.stages[i].policy();
    if (p == nullptr || p->shared_component.empty() || HasComponent(d, p->shared_component)) continue;
    errors.push_back(IndexPath(ChildPath(ChildPath(path, "pipeline"), "stages"), i) + ": the destination has no " +
                     p->shared_component + " (add \"" + p->shared_component + "\": {...})");
  }
}

// A map of names -> objects, bounded in count and name length.
template <class F>
void ReadNamed(const Json& j, const std::string& path, std::size_t max, Errors& errors, F&& each) {
  if (!j.is_object()) return errors.push_back(path + ": must be an object");
  if (j.size() > max) {
    return errors.push_back(path + ": must have at most " + std::to_string(max) + " entries");
  }
  for (const auto& [name, value] : j.items()) {
    if (name.empty() || name.size() > kMaxNameLength) {
      errors.push_back(ChildPath(path, name.substr(0, 64)) + ": a name must have 1 to 256 bytes");
      continue;
    }
    each(name, value, ChildPath(path, name));
  }
}

DestinationConfig ReadDestination(const Json& j, const std::string& path, Errors& errors) {
  DestinationConfig d;
  ObjectReader r(j, path, errors);
  if (!r.ok()) return d;
  if (const Json* v = r.Take("retry_budget")) {
    ReadBudget(*v, ChildPath(path, "retry_budget"), errors, d.retry_budget);
  }
  if (const Json* v = r.Take("circuit_breaker")) {
    ReadBreaker(*v, ChildPath(path, "circuit_breaker"), errors, d.circuit_breaker.emplace());
  }
  r.Field("bulkhead", d.bulkhead);
  r.Field("rate_limiter", d.rate_limiter);
  r.Field("adaptive_concurrency", d.adaptive_concurrency);
  if (const Json* v = r.Take("pipeline")) ReadPipeline(*v, ChildPath(path, "pipeline"), errors, d.pipeline);
  if (const Json* v = r.Take("methods")) {
    ReadNamed(*v, ChildPath(path, "methods"), kMaxMethods, errors,
              [&](const std::string& name, const Json& m, const std::string& p) {
                Read(m, p, errors, d.methods[name]);
              });
  }
  r.Finish();
  CheckSharedStages(d, path, errors);
  return d;
}

Json WriteDestination(const DestinationConfig& d) {
  Json out = WriteComponents(d);
  out["pipeline"] = WritePipeline(d.pipeline);
  if (!d.methods.empty()) {
    Json methods = Json::object();
    for (const auto& [name, m] : d.methods) methods[name] = Write(m);
    out["methods"] = std::move(methods);
  }
  return out;
}

Config ReadConfig(const Json& j, Errors& errors) {
  Config c;
  if (!j.is_object()) {
    errors.push_back("document: must be an object");
    return c;
  }
  ObjectReader r(j, "", errors);
  if (const Json* v = r.Take("destinations")) {
    ReadNamed(*v, "destinations", kMaxDestinations, errors,
              [&](const std::string& name, const Json& d, const std::string& p) {
                c.destinations.emplace(name, ReadDestination(d, p, errors));
              });
  } else {
    errors.push_back("destinations: missing (the config's destinations, by name)");
  }
  r.Finish();
  return c;
}

}  // namespace

Json WriteComponents(const DestinationConfig& d) {
  Json out = Json::object();
  if (d.retry_budget) out["retry_budget"] = WriteBudget(*d.retry_budget);
  if (d.circuit_breaker) out["circuit_breaker"] = WriteBreaker(*d.circuit_breaker);
  if (d.bulkhead) out["bulkhead"] = Write(*d.bulkhead);
  if (d.rate_limiter) out["rate_limiter"] = Write(*d.rate_limiter);
  if (d.adaptive_concurrency) out["adaptive_concurrency"] = Write(*d.adaptive_concurrency);
  return out;
}

}  // namespace config_internal

ParsedConfig ParseConfigText(std::string_view text, std::string_view grpc_destination) {
  using namespace config_internal;
  ParsedConfig out;
  std::optional<Json> doc = ParseDocument(text, out.errors);
  if (!doc) return out;
  if (IsGrpcServiceConfig(*doc)) {
    out.format = ConfigFormat::kGrpcServiceConfig;
    if (grpc_destination.empty() || grpc_destination.size() > kMaxNameLength) {
      out.errors.push_back("grpc_destination: a name must have 1 to 256 bytes");
      return out;
    }
    out.config = ReadGrpcServiceConfig(*doc, grpc_destination, out.errors);
  } else {
    out.config = ReadConfig(*doc, out.errors);
  }
  return out;
}

Result<Config> ParseConfig(std::string_view text, std::string_view grpc_destination) {
  ParsedConfig parsed = ParseConfigText(text, grpc_destination);
  if (!parsed.errors.empty()) return ValidationStatus("config", parsed.errors);
  return std::move(parsed.config);
}

std::string ToJson(const Config& config) {
  using namespace config_internal;
  Json destinations = Json::object();
  for (const auto& [name, d] : config.destinations) destinations[name] = WriteDestination(d);
  return Json{{"destinations", std::move(destinations)}}.dump(2);
}

}  // namespace stormguard::config
