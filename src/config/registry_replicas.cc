#include "registry_replicas.h"

#include "json_io.h"
#include "replicas_json.h"

namespace stormguard::config::config_internal {

std::vector<std::string> ReplicaSets::Check(const Config& config) {
  std::vector<std::string> errors;
  for (const auto& [name, d] : config.destinations) {
    if (d.replicas) CheckReplicas(*d.replicas, ChildPath(ChildPath("destinations", name), "replicas"), errors);
  }
  return errors;
}

void ReplicaSets::Apply(const Config& config, Listener* listener) {
  std::lock_guard lock(mu_);
  for (const auto& [name, d] : config.destinations) {
    if (!d.replicas) continue;
    ReplicaSetOptions options = d.replicas->SetOptions();
    options.listener = listener;
    auto it = sets_.find(name);
    if (it == sets_.end()) {
      auto made = ReplicaSet::Create(options);
      if (!made.ok()) continue;  // Check() passed: cannot happen
      it = sets_.emplace(name, std::move(made).value()).first;
    } else {
      (void)it->second->Reconfigure(options);
    }
    if (d.replicas->endpoints) (void)it->second->Update(*d.replicas->endpoints);
  }
  for (const auto& [name, set] : sets_) {  // no longer configured: no replicas
    const auto d = config.destinations.find(name);
    if (d == config.destinations.end() || !d->second.replicas) (void)set->Update({});
  }
}

std::shared_ptr<ReplicaSet> ReplicaSets::Find(std::string_view destination) const {
  std::lock_guard lock(mu_);
  const auto it = sets_.find(destination);
  return it == sets_.end() ? nullptr : it->second;
}

}  // namespace stormguard::config::config_internal
