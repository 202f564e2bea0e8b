#include "demo/bottom_ledger.h"

namespace stormguard::demo {

BottomLedger::Visit::~Visit() {
  std::lock_guard lock(ledger_.mu_);
  --ledger_.s_.in_flight;
}

BottomLedger::Visit BottomLedger::Arrive(const std::string& phase, std::int64_t unix_ms) {
  std::lock_guard lock(mu_);
  ++s_.phases[phase].reached;
  ++s_.timeline[unix_ms - unix_ms % kTimelineBucketMs];
  ++s_.in_flight;
  return Visit(*this);
}

void BottomLedger::Complete(const std::string& phase, std::int64_t giveup_ms, std::int64_t unix_ms) {
  std::lock_guard lock(mu_);
  BottomCounts& c = s_.phases[phase];
  ++c.completed;
  if (giveup_ms > 0 && unix_ms > giveup_ms) ++c.orphans;
}

void BottomLedger::Effect(const std::string& phase, const std::string& op) {
  std::lock_guard lock(mu_);
  BottomCounts& c = s_.phases[phase];
  ++c.effects;
  // Operation ids are unique per demo run, so one map serves every phase.
  if (++effects_per_op_[op] > 1) ++c.duplicate_effects;
}

BottomSnapshot BottomLedger::Snapshot() const {
  std::lock_guard lock(mu_);
  return s_;
}

nlohmann::json ToJson(const BottomSnapshot& s) {
  nlohmann::json j;
  j["in_flight"] = s.in_flight;
  j["phases"] = nlohmann::json::object();
  for (const auto& [name, c] : s.phases) {
    j["phases"][name] = {{"reached", c.reached},
                         {"completed", c.completed},
                         {"orphans", c.orphans},
                         {"effects", c.effects},
                         {"duplicate_effects", c.duplicate_effects}};
  }
  j["timeline"] = nlohmann::json::array();
  for (const auto& [start, n] : s.timeline) j["timeline"].push_back({start, n});
  return j;
}

BottomSnapshot BottomSnapshotFromJson(const nlohmann::json& j) {
  BottomSnapshot s;
  s.in_flight = j.at("in_flight").get<std::uint64_t>();
  for (const auto& [name, c] : j.at("phases").items()) {
    s.phases[name] = {c.at("reached").get<std::uint64_t>(), c.at("completed").get<std::uint64_t>(),
                      c.at("orphans").get<std::uint64_t>(), c.at("effects").get<std::uint64_t>(),
                      c.at("duplicate_effects").get<std::uint64_t>()};
  }
  for (const auto& bucket : j.at("timeline")) {
    s.timeline[bucket.at(0).get<std::int64_t>()] = bucket.at(1).get<std::uint64_t>();
  }
  return s;
}

}  // namespace stormguard::demo
