#include "stormguard/core/policy_id.h"

#include <array>
#include <atomic>
#include <deque>
#include <mutex>
#include <string>

namespace stormguard {
namespace {

constexpr std::array<std::string_view, kBuiltInPolicyCount> kBuiltInNames = {"",
                                                                             "pipeline",
                                                                             "retry",
                                                                             "hedge",
                                                                             "circuit_breaker",
                                                                             "bulkhead",
                                                                             "rate_limiter",
                                                                             "adaptive_concurrency",
                                                                             "timeout",
                                                                             "attempt_timeout",
                                                                             "fallback",
                                                                             "chaos",
                                                                             "idempotency_key",
                                                                             "time_limiter",
                                                                             "outlier_detection",
                                                                             "global_rate_limit",
                                                                             "adaptive_throttle"};

constexpr std::size_t kMaxNameBytes = 64;

// A program's names: written under `mu`, each published by a release store
// of its slot, so PolicyName reads them without the lock.
struct ProgramNames {
  std::mutex mu;
  std::deque<std::string> kept;  // a deque: adding never moves a name
  std::array<std::atomic<const std::string*>, kMaxProgramPolicies> slots{};
  int count = 0;  // under mu
};

ProgramNames& Names() {
  static ProgramNames names;
  return names;
}

PolicyId ProgramId(int i) noexcept {
  return static_cast<PolicyId>(static_cast<int>(PolicyId::kFirstProgramPolicy) + i);
}

}  // namespace

Result<PolicyId> RegisterPolicyName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string_view::npos) {
    return Status::InvalidArgument("policy name: must be 1 to 64 of [a-z0-9_], got \"" +
                                   std::string(name.substr(0, kMaxNameBytes)) + "\"");
  }
  for (int i = 1; i < kBuiltInPolicyCount; ++i) {
    if (kBuiltInNames[static_cast<std::size_t>(i)] == name) return static_cast<PolicyId>(i);
  }
  ProgramNames& n = Names();
  std::lock_guard lock(n.mu);
  for (int i = 0; i < n.count; ++i) {
    if (n.kept[static_cast<std::size_t>(i)] == name) return ProgramId(i);
  }
  if (n.count == kMaxProgramPolicies) {
    return Status::ResourceExhausted("policy " + std::string(name) + ": all " + std::to_string(kMaxProgramPolicies) +
                                     " ids for a program's own policies are taken");
  }
  const std::string& kept = n.kept.emplace_back(name);
  n.slots[static_cast<std::size_t>(n.count)].store(&kept, std::memory_order_release);
  return ProgramId(n.count++);
}

std::string_view PolicyName(PolicyId id) noexcept {
  const int index = PolicyIndex(id);
  if (index < 0) return "unknown";
  if (index < kBuiltInPolicyCount) return kBuiltInNames[static_cast<std::size_t>(index)];
  const std::string* name =
      Names().slots[static_cast<std::size_t>(index - kBuiltInPolicyCount)].load(std::memory_order_acquire);
  return name != nullptr ? std::string_view(*name) : std::string_view("unknown");
}

}  // namespace stormguard
