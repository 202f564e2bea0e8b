// A preset's JSON: checked once when it is registered, expanded with a
// configuration's parameters by the configuration's own stage reader.
#include "preset_template.h"

#include <algorithm>
#include <utility>

#include "destination_json.h"
#include "stormguard/core/validation.h"

namespace stormguard::config::config_internal {
namespace {

constexpr std::size_t kMaxName = 64;
// The root of the paths the readers report while a preset expands: never
// in a configuration's path, so an error's origin is told apart.
constexpr std::string_view kRoot = "\x1f";

bool ValidName(std::string_view name) {
  return !name.empty() && name.size() <= kMaxName &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string_view::npos;
}

// "$name" -> "name"; empty for any other value.
std::string_view Placeholder(const Json& j) {
  if (!j.is_string()) return {};
  const std::string& s = j.get_ref<const std::string&>();
  return s.size() > 1 && s[0] == '$' ? std::string_view(s).substr(1) : std::string_view();
}

// A stage item's condition ("when" or "unless"), or null for a plain stage.
const Json::object_t::value_type* Condition(const Json& item) {
  if (!item.is_object() || (!item.contains("when") && !item.contains("unless"))) return nullptr;
  return &*item.get_ref<const Json::object_t&>().find(item.contains("when") ? "when" : "unless");
}

void CheckPlaceholders(const Json& j, const PresetTemplate& t, const std::string& path, Errors& errors) {
  if (const std::string_view p = Placeholder(j); !p.empty() && !t.parameters.contains(p)) {
    errors.push_back(path + ": \"$" + std::string(p) + "\" names no parameter");
  }
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) CheckPlaceholders(v, t, ChildPath(path, k), errors);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) CheckPlaceholders(j[i], t, IndexPath(path, i), errors);
  }
}

void CheckStageItem(const Json& item, const PresetTemplate& t, const std::string& path, Errors& errors) {
  const auto* condition = Condition(item);
  if (condition == nullptr) return CheckPlaceholders(item, t, path, errors);
  if (item.size() != 2 || !item.contains("stage")) {
    return errors.push_back(path + ": a conditional stage has exactly two keys, \"" + condition->first +
                            "\" and \"stage\"");
  }
  const Json& flag = condition->second;
  if (!flag.is_string() || !t.parameters.contains(flag.get_ref<const std::string&>()) ||
      !t.parameters[flag.get_ref<const std::string&>()].is_boolean()) {
    errors.push_back(ChildPath(path, condition->first) + ": must name a boolean parameter");
  }
  CheckPlaceholders(item["stage"], t, ChildPath(path, "stage"), errors);
}

void ReadTemplate(const Json& j, PresetTemplate& t, const std::string& path, Errors& errors) {
  ObjectReader r(j, path, errors);
  if (!r.ok()) return;
  r.Field("name", t.name);
  if (!ValidName(t.name) || t.name == "stages") {
    errors.push_back(ChildPath(path, "name") + ": must be 1 to 64 of [a-z0-9_], and not \"stages\"");
  }
  r.Take("about");
  if (const Json* p = r.Take("parameters")) {
    if (!p->is_object()) {
      errors.push_back(ChildPath(path, "parameters") + ": must be an object");
    } else {
      t.parameters = *p;
    }
    for (const auto& [name, value] : t.parameters.items()) {
      const std::string at = ChildPath(ChildPath(path, "parameters"), name);
      if (!ValidName(name)) errors.push_back(at + ": a parameter's name must be 1 to 64 of [a-z0-9_]");
      if (!value.is_boolean() && !value.is_number() && !value.is_string()) {
        errors.push_back(at + ": a default must be a boolean, a number or a string");
      }
    }
  }
  const Json* stages = r.Take("stages");
  if (stages == nullptr || !stages->is_array() || stages->size() > kMaxListItems) {
    errors.push_back(ChildPath(path, "stages") + ": must be an array of at most " + std::to_string(kMaxListItems) +
                     " stages");
  } else {
    t.stages = *stages;
    for (std::size_t i = 0; i < stages->size(); ++i) {
      CheckStageItem((*stages)[i], t, IndexPath(ChildPath(path, "stages"), i), errors);
    }
  }
  if (const Json* c = r.Take("components")) {
    if (!c->is_object()) errors.push_back(ChildPath(path, "components") + ": must be an object");
    CheckPlaceholders(*c, t, ChildPath(path, "components"), errors);
    t.components = *c;
  }
  r.Finish();
}

// Where a parameter's value went: the reader's path -> the parameter.
using Origins = std::vector<std::pair<std::string, std::string>>;

Json Substitute(const Json& j, const Json& parameters, const std::string& at, Origins& origins) {
  if (const std::string_view p = Placeholder(j); !p.empty() && parameters.contains(p)) {
    origins.emplace_back(at, std::string(p));
    return parameters[std::string(p)];
  }
  Json out = j;
  if (j.is_object()) {
    for (auto& [k, v] : out.items()) v = Substitute(j[k], parameters, ChildPath(at, k), origins);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) out[i] = Substitute(j[i], parameters, IndexPath(at, i), origins);
  }
  return out;
}

// A reader's error at the preset's root, as the configuration's: under the
// parameter its value came from, else under the preset's own field.
std::string Translate(const std::string& error, const Origins& origins, const std::string& path) {
  const Origins::value_type* best = nullptr;
  for (const auto& origin : origins) {
    const std::string& at = origin.first;
    const bool inside = error.starts_with(at) && error.size() > at.size() &&
                        (error[at.size()] == ':' || error[at.size()] == '.' || error[at.size()] == '[');
    if (inside && (best == nullptr || at.size() > best->first.size())) best = &origin;
  }
  if (best != nullptr) return ChildPath(path, best->second) + error.substr(best->first.size());
  std::string inner = error.substr(kRoot.size());
  if (inner.starts_with('.')) inner.erase(0, 1);
  return path + ": the preset's " + (inner.starts_with('[') ? "stages" : "") + inner;
}

}  // namespace

Result<PresetTemplate> ParsePresetTemplate(std::string_view text) {
  Errors errors;
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  PresetTemplate t;
  if (j.is_discarded()) return Status::InvalidArgument("preset: not valid JSON");
  const std::string name = j.is_object() && j.contains("name") && j["name"].is_string()
                               ? j["name"].get<std::string>().substr(0, kMaxName)
                               : std::string();
  ReadTemplate(j, t, name.empty() ? "preset" : name, errors);
  if (!errors.empty()) return ValidationStatus("invalid preset", errors);
  return t;
}

Json ReadParameters(const PresetTemplate& t, const Json& given, const std::string& path, Errors& errors) {
  Json out = t.parameters;
  if (!given.is_object()) {
    errors.push_back(path + ": must be an object of the preset's parameters");
    return out;
  }
  for (const auto& [name, value] : given.items()) {
    const std::string at = ChildPath(path, name.substr(0, kMaxName));
    if (!t.parameters.contains(name)) {
      std::string known;
      for (const auto& [p, unused] : t.parameters.items()) known += (known.empty() ? "" : ", ") + p;
      errors.push_back(at + ": unknown field (" + t.name + "'s parameters: " + known + ")");
      continue;
    }
    const Json& fallback = t.parameters[name];
    if (fallback.is_boolean() && !value.is_boolean()) {
      errors.push_back(at + ": must be true or false");
    } else if (fallback.is_number() && !value.is_number()) {
      errors.push_back(at + ": must be a number");
    } else if (fallback.is_string() && !value.is_string()) {
      errors.push_back(at + ": must be a string");
    } else {
      out[name] = value;
    }
  }
  return out;
}

PresetStages ExpandTemplate(const PresetTemplate& t, const Json& parameters, const std::string& path, Errors& errors) {
  PresetStages out;
  Origins origins;
  Errors found;
  const std::string root(kRoot);
  bool all_known = true;
  for (const Json& item : t.stages) {
    const Json* stage = &item;
    if (const auto* condition = Condition(item)) {
      const bool flag = parameters.value(condition->second.get<std::string>(), false);
      if (flag != (condition->first == "when")) continue;
      stage = &item["stage"];
    }
    const std::string at = IndexPath(root, out.stages.size());
    bool known = false;
    out.stages.push_back(ReadStage(Substitute(*stage, parameters, at, origins), at, found, known));
    all_known = all_known && known;
  }
  if (all_known) CheckStageOrder(out.stages, root, found);
  if (t.components.is_object()) {
    const std::string at = ChildPath(root, "components");
    out.components = ReadComponents(Substitute(t.components, parameters, at, origins), at, found);
  }
  for (const std::string& e : found) {
    std::string translated = Translate(e, origins, path);
    if (std::find(errors.begin(), errors.end(), translated) == errors.end()) errors.push_back(std::move(translated));
  }
  return out;
}

}  // namespace stormguard::config::config_internal
