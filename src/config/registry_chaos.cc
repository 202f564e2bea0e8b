// A destination's chaos policies: made from their options, or kept and
// switched when only enabled and rate changed.
#include "registry_chaos.h"

#include "json_fields.h"

namespace stormguard::config::config_internal {

std::vector<KeptChaos> ObtainChaos(const DestinationConfig& d, const std::vector<KeptChaos>& previous,
                                   const ChaosEnv& env, const std::string& path, std::vector<std::string>& errors) {
  std::vector<KeptChaos> out;
  if (d.pipeline.preset) return out;  // a preset's stages are its own: never chaos
  const std::vector<StageConfig>& stages = d.pipeline.stages;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const ChaosConfig* chaos = stages[i].options<ChaosConfig>();
    if (chaos == nullptr) continue;
    const std::string stage = IndexPath(ChildPath(ChildPath(path, "pipeline"), "stages"), i);
    if (!env.allowed) {
      errors.push_back(stage +
                       ": chaos from configuration is not allowed in this process (RegistryOptions::allow_chaos)");
      out.emplace_back();  // keeps the k-th stage the k-th entry; the build stops at the error
      continue;
    }
    ChaosOptions o = chaos->options;
    KeptChaos& kept = out.emplace_back(KeptChaos{.options = Write(*chaos), .enabled = o.enabled, .rate = o.rate});
    kept.options.erase("enabled");
    kept.options.erase("rate");
    const std::string at = ChildPath(stage, "chaos");
    const KeptChaos* before = out.size() <= previous.size() ? &previous[out.size() - 1] : nullptr;
    // Kept only when valid: a Config built in code has not met the parser, and its switches are set as given.
    if (before != nullptr && before->policy != nullptr && before->options == kept.options && o.Validate().empty()) {
      kept.policy = before->policy;
      continue;
    }
    if (o.listener == nullptr) o.listener = env.listener;
    auto made = ChaosPolicy::Create(std::move(o));
    if (!made.ok()) {
      errors.push_back(at + ": " + made.status().message());
      continue;
    }
    kept.policy = std::move(made).value();
  }
  return out;
}

void SwitchChaos(const std::vector<KeptChaos>& chaos) {
  for (const KeptChaos& c : chaos) {
    if (c.policy == nullptr) continue;
    c.policy->SetEnabled(c.enabled);
    (void)c.policy->SetRate(c.rate);  // checked when the policy was obtained
  }
}

}  // namespace stormguard::config::config_internal
