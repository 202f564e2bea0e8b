// src/config/registry_replicas.h: the registry's replica sets, one per
// destination for the registry's life, updated in place by each accepted
// configuration (their endpoints keep their load and verdicts).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

class ReplicaSets {
 public:
  // "destinations.d.replicas...: reason" for each invalid replicas entry.
  static std::vector<std::string> Check(const Config& config);
  // Brings the sets in line with an accepted `config` (checked before).
  void Apply(const Config& config, Listener* listener);
  std::shared_ptr<ReplicaSet> Find(std::string_view destination) const;

 private:
  mutable std::mutex mu_;  // guards the map; the sets lock themselves
  std::map<std::string, std::shared_ptr<ReplicaSet>, std::less<>> sets_;
};

}  // namespace stormguard::config::config_internal
