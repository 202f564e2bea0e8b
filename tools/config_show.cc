#include "config_show.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "render/printable.h"
#include "render/text_table.h"
#include "stormguard/config/preset.h"

namespace stormguard::cli {
namespace {

// The output keeps its keys in the order shown; ToJson's text is read into
// std::map-backed objects, so a destination or method is found by name in
// O(log n) (ordered_json finds keys by a linear scan).
using Json = nlohmann::ordered_json;
using Written = nlohmann::json;
using Rows = std::vector<std::pair<std::string, std::string>>;
using Emit = std::function<void(std::string_view)>;
constexpr auto kReplace = Json::error_handler_t::replace;  // a dump never throws

// Adds `key` to `object` without looking for it: ordered_json's insertion
// scans every key, quadratic over a destination's 10,000 methods. The keys
// come from a std::map, so they are distinct.
void Append(Json& object, std::string key, Json value) {
  object.get_ref<Json::object_t&>().emplace_back(std::move(key), std::move(value));
}

// What ToJson writes for a config holding only `d` under `name`.
Written WrittenDestination(const std::string& name, config::DestinationConfig d) {
  config::Config one;
  one.destinations.emplace(name, std::move(d));
  Written doc = Written::parse(config::ToJson(one));
  return std::move(doc["destinations"][name]);
}

// A destination's preset as written, and the note to show once it is expanded.
struct Extra {
  Json preset;  // null: no preset
  std::string note;
};

// A preset replaced by the stages it builds; the components it brings made
// the destination's when the destination has none.
Result<Extra> ExpandPipeline(const std::string& name, config::DestinationConfig& d) {
  if (!d.pipeline.preset) return Extra{};
  config::DestinationConfig bare;
  bare.pipeline = d.pipeline;
  Extra extra{.preset = Json(WrittenDestination(name, std::move(bare))["pipeline"]), .note = {}};
  const std::string preset = d.pipeline.preset->name;
  Result<config::PresetStages> expanded = config::ExpandPreset(*d.pipeline.preset);
  if (!expanded.ok()) return expanded.status();
  d.pipeline = config::PipelineConfig{.stages = expanded->stages};
  for (const std::string& component : config::AddPresetComponents(d, *expanded)) {
    extra.note +=
        (extra.note.empty() ? "" : "; ") + component + ": " + preset + "'s own (the destination configures none)";
  }
  return extra;
}

// "replaces stages[1]" or "adds a retry stage", for each setting of the method.
Json Overrides(const config::MethodConfig& m, const std::vector<config::StageConfig>& stages) {
  Json out = Json::object();
  const auto note = [&](const char* field) {
    std::size_t i = 0;
    while (i < stages.size() && !stages[i].Is(field)) ++i;
    out[field] =
        i < stages.size() ? "replaces stages[" + std::to_string(i) + "]" : "adds a " + std::string(field) + " stage";
  };
  if (m.timeout) note("timeout");
  if (m.retry) note("retry");
  if (m.hedge) note("hedge");
  return out;
}

// A destination as ToJson writes it, regrouped: components, pipeline, methods.
Json Destination(const Written& written, const Extra& extra, const config::DestinationConfig& d) {
  Json components = Json::object();
  for (const auto& [key, value] : written.items()) {
    if (key != "pipeline" && key != "methods") components[key] = value;
  }
  Json pipeline = Json::object();
  if (!extra.preset.is_null()) pipeline["preset"] = extra.preset;
  pipeline["stages"] = written.at("pipeline").at("stages");
  Json methods = Json::object();
  if (!d.methods.empty()) {
    const Written& entries = written.at("methods");
    for (const auto& [name, m] : d.methods) {
      Json entry = entries.at(name);
      entry["overrides"] = Overrides(m, d.pipeline.stages);
      Append(methods, name, std::move(entry));
    }
  }
  Json out = {
      {"components", std::move(components)}, {"pipeline", std::move(pipeline)}, {"methods", std::move(methods)}};
  if (!extra.note.empty()) out["notes"] = Json::array({extra.note});
  return out;
}

// `"name": {...}` as a dump(2) of the whole document prints it, inside "destinations".
std::string JsonMember(const std::string& name, const Json& destination, bool first) {
  const std::string value = destination.dump(2, ' ', false, kReplace);
  std::string out = first ? "\n    " : ",\n    ";
  out += Json(name).dump(-1, ' ', false, kReplace) + ": ";
  out.reserve(out.size() + value.size() + value.size() / 8);
  for (const char c : value) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

// A scalar as the table shows it: strings without quotes.
std::string Cell(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(-1, ' ', false, kReplace); }

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

// Rows under a heading, indented; "(none)" when there are none. Everything
// from the file is escaped here, before the column is measured.
std::string Section(const std::string& heading, Rows rows) {
  std::string out = "  " + render::Printable(heading) + "\n";
  if (rows.empty()) return out + "    (none)\n";
  for (auto& [key, value] : rows) {
    if (!render::IsPrintable(key)) key = render::Printable(key);
    if (!render::IsPrintable(value)) value = render::Printable(value);
  }
  return out + render::KeyValues(rows, "    ");
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
  return Section(heading, std::move(rows));
}

// Emitted section by section: a destination's methods can make many megabytes.
void DestinationTable(const std::string& name, const Json& d, bool first, const Emit& emit) {
  Rows components;
  if (!d["components"].empty()) Flatten(d["components"], "", components);
  emit((first ? "" : "\n") + ("destination " + render::Printable(name)) + "\n" +
       Section("shared components", std::move(components)) + PipelineSection(d["pipeline"], d["components"]));
  Rows methods;
  for (const auto& [method, m] : d["methods"].items()) {
    Rows settings;
    Flatten(m, "", settings);
    for (auto& [k, v] : settings) methods.emplace_back(method + "  " + k, std::move(v));
  }
  emit(Section("methods", std::move(methods)));
  std::string notes;
  if (d.contains("notes")) {
    for (const Json& n : d["notes"]) notes += "  note: " + render::Printable(Cell(n)) + "\n";
  }
  emit(notes);
}

}  // namespace

Status ShowEffective(config::ParsedConfig parsed, bool json, const Emit& emit) {
  std::vector<Extra> extras;  // in the order of the destinations
  for (auto& [name, d] : parsed.config.destinations) {
    Result<Extra> extra = ExpandPipeline(name, d);
    if (!extra.ok()) return extra.status();
    extras.push_back(std::move(*extra));
  }
  const bool grpc = parsed.format == config::ConfigFormat::kGrpcServiceConfig;
  if (json)
    emit(std::string("{\n  \"format\": \"") + (grpc ? "gRPC service config" : "stormguard config") +
         "\",\n  \"destinations\": {");
  std::size_t i = 0;
  for (auto& [name, d] : parsed.config.destinations) {
    const Json shown = Destination(WrittenDestination(name, d), extras[i], d);
    if (json) emit(JsonMember(name, shown, i == 0));
    else DestinationTable(name, shown, i == 0, emit);
    d = {};  // shown: its memory is not needed any more
    ++i;
  }
  if (json) emit(i == 0 ? "}\n}\n" : "\n  }\n}\n");
  return Status::Ok();
}

}  // namespace stormguard::cli
