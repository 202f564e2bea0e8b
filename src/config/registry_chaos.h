// src/config/registry_chaos.h: a destination's chaos policies, and how a
// reload switches them without replacing them.
//
// Each chaos stage of a destination's pipeline has one ChaosPolicy, shared
// by the destination's pipeline and every method's (the k-th chaos stage of
// each is the k-th of the destination: method entries never add chaos). A
// reload whose options for the k-th chaos stage differ from the previous
// ones only in `enabled` and `rate` keeps the policy: the same object, its
// draws and its count, switched through its atomics once the whole
// configuration has been built, so a rejected configuration switches
// nothing. Any other change makes a fresh policy.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "json_io.h"
#include "stormguard/config/config.h"

namespace stormguard::config::config_internal {

struct KeptChaos {
  std::shared_ptr<ChaosPolicy> policy;  // null: its options were refused
  Json options;                         // their JSON form, without enabled and rate
  bool enabled = false;                 // what the configuration asks for
  double rate = 0.0;
};

struct ChaosEnv {
  Listener* listener = nullptr;  // policies report to it unless their options name one
  bool allowed = false;          // RegistryOptions::allow_chaos: else every chaos stage is an error
};

// The policies of `d`'s chaos stages, in order, reusing `previous`'s (the
// same destination's in the configuration in force) where only enabled and
// rate differ. Errors are "path.pipeline.stages[i].chaos: reason", or
// "path.pipeline.stages[i]: chaos from configuration is not allowed ...".
std::vector<KeptChaos> ObtainChaos(const DestinationConfig& d, const std::vector<KeptChaos>& previous,
                                   const ChaosEnv& env, const std::string& path, std::vector<std::string>& errors);

// Sets every policy's enabled and rate to what its configuration asks.
void SwitchChaos(const std::vector<KeptChaos>& chaos);

}  // namespace stormguard::config::config_internal
