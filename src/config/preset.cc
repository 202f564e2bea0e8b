// The table of presets: the library's own (JSON compiled in), registered on
// first use, then a program's.
#include "stormguard/config/preset.h"

#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "preset_template.h"
#include "stormguard/core/validation.h"

namespace stormguard::config {
namespace config_internal {

// The JSON of the library's presets (src/config/presets/*.json), generated.
std::vector<std::string_view> BuiltInPresetTexts();

namespace {

struct PresetTable {
  std::mutex mu;
  std::deque<PresetTemplate> presets;  // a deque: registering never moves one
  std::map<std::string, const PresetTemplate*, std::less<>> by_name;
};

// Under t.mu.
Status Add(PresetTable& t, std::string_view text) {
  Result<PresetTemplate> parsed = ParsePresetTemplate(text);
  if (!parsed.ok()) return parsed.status();
  if (t.by_name.contains(parsed->name)) {
    return {StatusCode::kAlreadyExists, "preset " + parsed->name + ": a preset of that name is registered"};
  }
  const PresetTemplate& kept = t.presets.emplace_back(std::move(parsed).value());
  t.by_name.emplace(kept.name, &kept);
  return Status::Ok();
}

PresetTable& Table() {
  static PresetTable table;
  static std::once_flag built_in;
  std::call_once(built_in, [] {
    std::lock_guard lock(table.mu);
    for (std::string_view text : BuiltInPresetTexts()) {
      if (Status s = Add(table, text); !s.ok()) throw std::logic_error(s.message());
    }
  });
  return table;
}

}  // namespace

const PresetTemplate* FindPresetTemplate(std::string_view name) {
  PresetTable& t = Table();
  std::lock_guard lock(t.mu);
  const auto it = t.by_name.find(name);
  return it != t.by_name.end() ? it->second : nullptr;
}

}  // namespace config_internal

Status RegisterPreset(std::string_view json_text) {
  config_internal::PresetTable& t = config_internal::Table();
  std::lock_guard lock(t.mu);
  return config_internal::Add(t, json_text);
}

std::vector<std::string> PresetNames() {
  config_internal::PresetTable& t = config_internal::Table();
  std::lock_guard lock(t.mu);
  std::vector<std::string> out;
  for (const config_internal::PresetTemplate& p : t.presets) out.push_back(p.name);
  return out;
}

const nlohmann::json* PresetDefaults(std::string_view name) {
  const config_internal::PresetTemplate* t = config_internal::FindPresetTemplate(name);
  return t != nullptr ? &t->parameters : nullptr;
}

Result<PresetStages> ExpandPreset(const PresetConfig& preset) {
  using namespace config_internal;
  const PresetTemplate* t = FindPresetTemplate(preset.name);
  if (t == nullptr) return Status::NotFound("no preset named \"" + preset.name.substr(0, 64) + "\"");
  Errors errors;
  const Json given = preset.parameters.is_null() ? Json::object() : preset.parameters;
  const Json parameters = ReadParameters(*t, given, t->name, errors);
  PresetStages out = ExpandTemplate(*t, parameters, t->name, errors);
  if (!errors.empty()) return ValidationStatus("preset", errors);
  return out;
}

}  // namespace stormguard::config
