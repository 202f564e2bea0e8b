// The JSON form of one stage: {"kind": {options}} or "kind", read and
// written by the stage's registered policy.
#include "destination_json.h"

namespace stormguard::config::config_internal {
namespace {

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

}  // namespace

// An order PipelineBuilder::Build() would refuse, by its own rule, at the
// offending stage's path.
void CheckStageOrder(const std::vector<StageConfig>& stages, const std::string& path, Errors& errors) {
  std::vector<StagePlacement> placements;
  for (const StageConfig& s : stages) placements.push_back(PlacementOf(s));
  for (const PlacementError& e : CheckPlacements(placements)) {
    errors.push_back(IndexPath(path, e.index) + ": " + e.reason);
  }
}

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

}  // namespace stormguard::config::config_internal
