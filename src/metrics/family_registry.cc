#include "family_registry.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace stormguard::metrics_internal {
namespace {

static_assert(kEventKindCount <= 32, "RegisteredFamily::kinds holds a bit per event kind");

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_'; }

// [a-zA-Z_][a-zA-Z0-9_]*, with ':' too when `colons`.
bool IsIdentifier(std::string_view s, bool colons) {
  const auto ok = [&](char c) { return IsWordChar(c) || (colons && c == ':'); };
  return !s.empty() && !IsDigit(s.front()) && std::all_of(s.begin(), s.end(), ok);
}

std::string NameProblem(const MetricFamily& f) {
  if (f.name.size() > 128 || !IsIdentifier(f.name, true)) {
    return "name: must be 1 to 128 of [a-zA-Z0-9_:], not starting with a digit";
  }
  if (IsBuiltInFamily(f.name)) return "name: is one of MetricsListener's own families";
  const bool total = f.name.ends_with("_total");
  if (f.type == MetricType::kCounter && !total) return "name: a counter's must end in _total";
  if (f.type != MetricType::kCounter && total) return "name: only a counter's may end in _total";
  return {};
}

std::string HelpProblem(const MetricFamily& f) {
  const auto printable = [](char c) { return c >= 0x20 && c < 0x7f && c != '\\'; };
  if (f.help.empty() || f.help.size() > 256 || !std::all_of(f.help.begin(), f.help.end(), printable)) {
    return "help: must be 1 to 256 bytes of printable ASCII without a backslash";
  }
  return {};
}

std::string EventsProblem(const MetricFamily& f) {
  if (f.policy == PolicyId::kNone || PolicyIndex(f.policy) < 0) return "policy: must be a policy's id";
  if (f.kinds.empty()) return "kinds: must name at least one event kind";
  const bool reports_attempts =
      f.policy == PolicyId::kPipeline || f.policy == PolicyId::kRetry || f.policy == PolicyId::kHedge;
  for (EventKind k : f.kinds) {
    if (static_cast<int>(k) < 0 || static_cast<int>(k) >= kEventKindCount) return "kinds: holds an unknown event kind";
    if (k == EventKind::kAttemptStarted) return "kinds: kAttemptStarted never reaches a MetricsListener";
    if (k == EventKind::kAttemptEnded && reports_attempts) {
      return "kinds: the pipeline's, retry's and hedge's kAttemptEnded feed stormguard_attempts_total";
    }
  }
  return {};
}

std::string StatesProblem(const MetricFamily& f) {
  if (f.state_label.empty()) {
    if (!f.state_names.empty()) return "state_label: must be set when state_names are";
    if (f.type == MetricType::kStateGauge) return "state_label: a state gauge needs states";
    return {};
  }
  if (!IsIdentifier(f.state_label, false) || f.state_label.starts_with("__") || f.state_label == "name" ||
      f.state_label == "le") {
    return "state_label: must be [a-zA-Z_][a-zA-Z0-9_]*, neither name nor le nor starting with __";
  }
  if (f.state_names.empty() || f.state_names.size() > 255) return "state_names: must hold 1 to 255 names";
  std::set<std::string_view> seen;
  for (const std::string& s : f.state_names) {
    if (s.empty() || !std::all_of(s.begin(), s.end(), IsWordChar)) {
      return "state_names: each must be 1 or more of [a-zA-Z0-9_], got \"" + s.substr(0, 64) + "\"";
    }
    if (!seen.insert(s).second) return "state_names: \"" + s + "\" is there twice";
  }
  return {};
}

Status Check(const MetricFamily& f) {
  for (std::string problem : {NameProblem(f), HelpProblem(f), EventsProblem(f), StatesProblem(f)}) {
    if (!problem.empty()) return Status::InvalidArgument("metric family " + f.name.substr(0, 128) + ": " + problem);
  }
  return Status::Ok();
}

int CellsOf(const MetricFamily& f) {
  return f.type == MetricType::kCounter && !f.state_names.empty() ? static_cast<int>(f.state_names.size()) : 1;
}

}  // namespace

FamilyRegistry& FamilyRegistry::Get() {
  static FamilyRegistry registry;
  return registry;
}

Status FamilyRegistry::Register(std::span<const MetricFamily> families) {
  for (const MetricFamily& f : families) {
    if (Status s = Check(f); !s.ok()) return s;
  }
  std::lock_guard lock(mu_);
  // All or none: find what is new, and check that it fits, before adding any.
  std::vector<const MetricFamily*> fresh;
  int cells = 0;
  for (const MetricFamily& f : families) {
    const MetricFamily* same = Named(f.name);
    for (const MetricFamily* g : fresh) same = g->name == f.name ? g : same;
    if (same != nullptr && !(*same == f)) {
      return {StatusCode::kAlreadyExists, "metric family " + f.name + ": a different family has that name"};
    }
    if (same != nullptr) continue;
    fresh.push_back(&f);
    cells += CellsOf(f);
  }
  if (count() + static_cast<int>(fresh.size()) > kMaxMetricFamilies || cells_ + cells > kMaxMetricFamilySeries) {
    return Status::ResourceExhausted("metric families: " + std::to_string(kMaxMetricFamilies) + " families and " +
                                     std::to_string(kMaxMetricFamilySeries) + " series at most, for the process");
  }
  for (const MetricFamily* f : fresh) Add(*f);
  return Status::Ok();
}

const MetricFamily* FamilyRegistry::Named(std::string_view name) const noexcept {
  for (const RegisteredFamily& r : kept_) {
    if (r.family.name == name) return &r.family;
  }
  return nullptr;
}

void FamilyRegistry::Add(const MetricFamily& f) {
  RegisteredFamily& r = kept_.emplace_back(RegisteredFamily{.family = f, .first_cell = cells_, .cells = CellsOf(f)});
  for (EventKind k : f.kinds) r.kinds |= 1U << static_cast<unsigned>(k);
  cells_ += r.cells;
  const int n = count_.load(std::memory_order_relaxed);
  slots_[static_cast<std::size_t>(n)].store(&r, std::memory_order_release);
  count_.store(n + 1, std::memory_order_release);
  // After the family: whoever sees its kinds finds it.
  kinds_[static_cast<std::size_t>(PolicyIndex(f.policy))].fetch_or(r.kinds, std::memory_order_release);
}

}  // namespace stormguard::metrics_internal

namespace stormguard {

Status RegisterMetricFamilies(std::span<const MetricFamily> families) {
  return metrics_internal::FamilyRegistry::Get().Register(families);
}

}  // namespace stormguard
