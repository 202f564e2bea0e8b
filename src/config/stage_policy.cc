// The table of stage policies: the library's own, registered on first use,
// then a program's.
#include "stormguard/config/stage_policy.h"

#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "policies/builtin_policies.h"

namespace stormguard::config {
namespace {

constexpr std::size_t kMaxPolicyName = 64;

struct PolicyTable {
  std::mutex mu;
  std::deque<StagePolicy> policies;  // a deque: registering never moves one
  std::map<std::string, const StagePolicy*, std::less<>> by_name;
};

Status Check(const StagePolicy& p) {
  if (p.name.empty() || p.name.size() > kMaxPolicyName ||
      p.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
    return Status::InvalidArgument("stage policy name: must be 1 to 64 of [a-z0-9_], got \"" +
                                   p.name.substr(0, kMaxPolicyName) + "\"");
  }
  if (!p.build) return Status::InvalidArgument("stage policy " + p.name + ": build: must be set");
  if (p.read && !p.write) {
    return Status::InvalidArgument("stage policy " + p.name + ": write: must be set when read is (config show)");
  }
  return Status::Ok();
}

// Under t.mu.
Status Add(PolicyTable& t, StagePolicy p) {
  if (Status s = Check(p); !s.ok()) return s;
  if (t.by_name.contains(p.name)) {
    return {StatusCode::kAlreadyExists, "stage policy " + p.name + ": a policy of that name is registered"};
  }
  if (Status s = RegisterMetricFamilies(p.metric_families); !s.ok()) {
    return {s.code(), "stage policy " + p.name + ": metric_families: " + s.message()};
  }
  const StagePolicy& kept = t.policies.emplace_back(std::move(p));
  t.by_name.emplace(kept.name, &kept);
  return Status::Ok();
}

PolicyTable& Table() {
  static PolicyTable table;
  static std::once_flag built_in;
  std::call_once(built_in, [] {
    std::lock_guard lock(table.mu);
    for (StagePolicy& p : config_internal::BuiltInStagePolicies()) {
      if (Status s = Add(table, std::move(p)); !s.ok()) throw std::logic_error(s.message());
    }
  });
  return table;
}

}  // namespace

StageConfig StageConfig::Of(std::string_view name) {
  const StagePolicy* p = FindStagePolicy(name);
  if (p == nullptr) throw std::invalid_argument("no stage policy named " + std::string(name));
  return StageConfig(*p, p->defaults);
}

StageConfig StageConfig::Of(std::string_view name, std::any options) {
  StageConfig s = Of(name);
  s.options_ = std::move(options);
  return s;
}

std::string_view StageConfig::kind() const noexcept {
  return policy_ != nullptr ? std::string_view(policy_->name) : std::string_view();
}

Status RegisterStagePolicy(StagePolicy policy) {
  PolicyTable& t = Table();
  std::lock_guard lock(t.mu);
  return Add(t, std::move(policy));
}

const StagePolicy* FindStagePolicy(std::string_view name) noexcept {
  PolicyTable& t = Table();
  std::lock_guard lock(t.mu);
  const auto it = t.by_name.find(name);
  return it != t.by_name.end() ? it->second : nullptr;
}

std::vector<const StagePolicy*> StagePolicies() {
  PolicyTable& t = Table();
  std::lock_guard lock(t.mu);
  std::vector<const StagePolicy*> out;
  for (const StagePolicy& p : t.policies) out.push_back(&p);
  return out;
}

StagePlacement PlacementOf(const StageConfig& stage) {
  const StagePolicy* p = stage.policy();
  if (p == nullptr || !p->placement) return StagePlacement{.kind = stage.kind()};
  return p->placement(stage.any_options());
}

}  // namespace stormguard::config
