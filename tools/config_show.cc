#include "config_show.h"

#include <map>
#include <utility>
#include <vector>

#include "render/text_table.h"
#include "stormguard/config/preset_stages.h"

namespace stormguard::cli {
namespace {

using Json = nlohmann::ordered_json;
using Rows = std::vector<std::pair<std::string, std::string>>;

// A preset replaced by the stages it builds; its breaker made the
// destination's when the destination has none. Returns the note to show.
Result<std::string> ExpandPipeline(config::DestinationConfig& d) {
  if (!d.pipeline.preset) return std::string();
  const std::string_view preset = config::PresetKindName(d.pipeline.preset->kind);
  Result<config::PresetStages> expanded = config::ExpandPreset(*d.pipeline.preset);
  if (!expanded.ok()) return expanded.status();
  d.pipeline = config::PipelineConfig{.stages = std::move(expanded->stages)};
  if (d.circuit_breaker || !expanded->own_breaker) return std::string();
  d.circuit_breaker = expanded->own_breaker;
  return "circuit_breaker: " + std::string(preset) + "'s own (the destination configures none)";
}

// "replaces stages[1]" or "adds a retry stage", for each setting of the method.
Json Overrides(const config::MethodConfig& m, const std::vector<config::StageConfig>& stages) {
  using config::StageKind;
  Json out = Json::object();
  const auto note = [&](const char* field, StageKind kind) {
    std::size_t i = 0;
    while (i < stages.size() && stages[i].kind != kind) ++i;
    out[field] = i < stages.size() ? "replaces stages[" + std::to_string(i) + "]"
                                   : "adds a " + std::string(config::StageKindName(kind)) + " stage";
  };
  if (m.timeout) note("timeout", StageKind::kTimeout);
  if (m.retry) note("retry", StageKind::kRetry);
  if (m.hedge) note("hedge", StageKind::kHedge);
  return out;
}

// A destination as ToJson writes it, regrouped: components, pipeline, methods.
Json Destination(const Json& written, const Json& preset, const std::string& note,
                 const config::DestinationConfig& d) {
  Json components = Json::object();
  for (const auto& [key, value] : written.items()) {
    if (key != "pipeline" && key != "methods") components[key] = value;
  }
  Json pipeline = Json::object();
  if (!preset.is_null()) pipeline["preset"] = preset;
  pipeline["stages"] = written["pipeline"]["stages"];
  Json methods = Json::object();
  for (const auto& [name, m] : d.methods) {
    methods[name] = written["methods"][name];
    methods[name]["overrides"] = Overrides(m, d.pipeline.stages);
  }
  Json out = {{"components", std::move(components)}, {"pipeline", std::move(pipeline)},
              {"methods", std::move(methods)}};
  if (!note.empty()) out["notes"] = Json::array({note});
  return out;
}

}  // namespace

Result<Json> EffectiveConfig(const config::ParsedConfig& parsed) {
  const Json as_read = Json::parse(config::ToJson(parsed.config));
  config::Config effective = parsed.config;
  std::map<std::string, std::string> notes;
  for (auto& [name, d] : effective.destinations) {
    Result<std::string> note = ExpandPipeline(d);
    if (!note.ok()) return note.status();
    notes[name] = *note;
  }
  const Json written = Json::parse(config::ToJson(effective));
  Json destinations = Json::object();
  for (const auto& [name, d] : effective.destinations) {
    const Json& pipeline = as_read["destinations"][name]["pipeline"];
    const Json preset = pipeline.contains("stages") ? Json() : pipeline;
    destinations[name] = Destination(written["destinations"][name], preset, notes[name], d);
  }
  const bool grpc = parsed.format == config::ConfigFormat::kGrpcServiceConfig;
  return Json{{"format", grpc ? "gRPC service config" : "stormguard config"},
              {"destinations", std::move(destinations)}};
}

namespace {

// A scalar as the table shows it: strings without quotes.
std::string Cell(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// One row per option: nested objects as dotted keys, lists in one cell.
void Flatten(const Json& v, const std::string& key, Rows& rows) {
  if (v.is_object() && !v.empty()) {
    for (const auto& [k, inner] : v.items()) Flatten(inner, key.empty() ? k : key + "." + k, rows);
    return;
  }
  if (v.is_array()) {
    std::string cell;
    for (const Json& item : v) cell += (cell.empty() ? "" : ", ") + Cell(item);
    rows.emplace_back(key, cell.empty() ? "(none)" : cell);
    return;
  }
  rows.emplace_back(key, v.is_object() ? "(none)" : Cell(v));
}

// Rows under a heading, indented; "(none)" when there are none.
std::string Section(const std::string& heading, const Rows& rows) {
  std::string out = "  " + heading + "\n";
  if (rows.empty()) return out + "    (none)\n";
  std::string body = render::KeyValues(rows);
  for (std::size_t at = 0; at < body.size(); at = body.find('\n', at) + 1) body.insert(at, "    ");
  return out + body;
}

// A stage without options of its own is a shared guard or has none.
std::string PipelineSection(const Json& pipeline, const Json& components) {
  Rows rows;
  const Json& stages = pipeline["stages"];
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const std::string where = "stages[" + std::to_string(i) + "] ";
    if (stages[i].is_string()) {
      const bool shared = components.contains(stages[i].get<std::string>());
      rows.emplace_back(where + Cell(stages[i]), shared ? "the destination's, in shared components" : "(no options)");
      continue;
    }
    Rows options;
    Flatten(stages[i], "", options);
    for (auto& [k, v] : options) rows.emplace_back(where + k, v);
  }
  std::string heading = "pipeline, outermost first";
  if (pipeline.contains("preset")) {
    const auto preset = pipeline["preset"].items().begin();  // {"user_facing": {options}}
    Rows options;
    Flatten(preset.value(), "", options);
    std::string text;
    for (const auto& [k, v] : options) text += (text.empty() ? "" : ", ") + k + " " + v;
    heading = "pipeline: preset " + preset.key() + " (" + text + "), its stages outermost first";
  }
  if (rows.empty()) heading += " (no stages: the call runs bare)";
  return Section(heading, rows);
}

}  // namespace

std::string EffectiveTable(const Json& effective) {
  std::string out;
  for (const auto& [name, d] : effective["destinations"].items()) {
    out += (out.empty() ? "" : "\n") + ("destination " + name) + "\n";
    Rows components;
    if (!d["components"].empty()) Flatten(d["components"], "", components);
    out += Section("shared components", components);
    out += PipelineSection(d["pipeline"], d["components"]);
    Rows methods;
    for (const auto& [method, m] : d["methods"].items()) {
      Rows settings;
      Flatten(m, "", settings);
      for (auto& [k, v] : settings) methods.emplace_back(method + "  " + k, v);
    }
    out += Section("methods", methods);
    if (d.contains("notes")) {
      for (const Json& n : d["notes"]) out += "  note: " + Cell(n) + "\n";
    }
  }
  return out;
}

}  // namespace stormguard::cli
