#include "stormguard/config/config_json.h"

#include "destination_json.h"
#include "grpc_service_config_reader.h"
#include "json_document.h"
#include "json_fields.h"
#include "preset_template.h"
#include "replicas_json.h"
#include "stormguard/core/validation.h"

namespace stormguard::config {
namespace config_internal {

namespace {

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
  const PresetTemplate* preset = FindPresetTemplate(kv->first);
  if (preset == nullptr) {
    std::string names = "stages";
    const std::vector<std::string> presets = PresetNames();
    for (std::size_t i = 0; i < presets.size(); ++i) names += (i + 1 < presets.size() ? ", " : " or ") + presets[i];
    errors.push_back(inner + ": unknown pipeline (use " + names + ")");
    return;
  }
  out.preset = PresetConfig{.name = preset->name, .parameters = ReadParameters(*preset, kv->second, inner, errors)};
}

Json WritePipeline(const PipelineConfig& p) {
  if (p.preset) {
    Json parameters = p.preset->parameters.is_object() ? p.preset->parameters : Json::object();
    if (const Json* defaults = PresetDefaults(p.preset->name)) {
      for (const auto& [name, value] : defaults->items()) parameters.emplace(name, value);  // keeps set ones
    }
    return {{p.preset->name, std::move(parameters)}};
  }
  Json stages = Json::array();
  for (const StageConfig& s : p.stages) stages.push_back(WriteStage(s));
  return {{"stages", std::move(stages)}};
}

void CheckSharedStage(const StageConfig& s, const DestinationConfig& d, const std::string& at, Errors& errors) {
  const StagePolicy* p = s.policy();
  if (p == nullptr || p->shared_component.empty() || HasComponent(d, p->shared_component)) return;
  errors.push_back(at + ": the destination has no " + p->shared_component + " (add \"" + p->shared_component +
                   "\": {...})");
}

// A preset's parameters give valid stages, and every stage that names a
// shared component finds it, configured by the destination or brought by
// its preset.
void CheckPipeline(const DestinationConfig& d, const std::string& path, Errors& errors) {
  const std::string pipeline = ChildPath(path, "pipeline");
  if (!d.pipeline.preset) {
    for (std::size_t i = 0; i < d.pipeline.stages.size(); ++i) {
      CheckSharedStage(d.pipeline.stages[i], d, IndexPath(ChildPath(pipeline, "stages"), i), errors);
    }
    return;
  }
  const PresetTemplate* preset = FindPresetTemplate(d.pipeline.preset->name);
  if (preset == nullptr) return;  // reported
  const std::string at = ChildPath(pipeline, preset->name);
  Errors found;
  PresetStages expanded = ExpandTemplate(*preset, d.pipeline.preset->parameters, at, found);
  DestinationConfig with = ComponentsOf(d);
  AddPresetComponents(with, expanded);
  for (std::size_t i = 0; found.empty() && i < expanded.stages.size(); ++i) {
    CheckSharedStage(expanded.stages[i], with, at + " (its stages[" + std::to_string(i) + "])", found);
  }
  errors.insert(errors.end(), found.begin(), found.end());
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
  ReadComponents(r, d);
  if (const Json* v = r.Take("replicas")) d.replicas = ReadReplicas(*v, ChildPath(path, "replicas"), errors);
  if (const Json* v = r.Take("pipeline")) ReadPipeline(*v, ChildPath(path, "pipeline"), errors, d.pipeline);
  if (const Json* v = r.Take("methods")) {
    ReadNamed(*v, ChildPath(path, "methods"), kMaxMethods, errors,
              [&](const std::string& name, const Json& m, const std::string& p) {
                Read(m, p, errors, d.methods[name]);
              });
  }
  r.Finish();
  CheckPipeline(d, path, errors);
  return d;
}

Json WriteDestination(const DestinationConfig& d) {
  Json out = WriteComponents(d);
  if (d.replicas) out["replicas"] = WriteReplicas(*d.replicas);
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
