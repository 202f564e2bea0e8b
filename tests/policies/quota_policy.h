// tests/policies/quota_policy.h: a stage policy that lives entirely in the
// test tree, to show that a program adds one without changing the library.
//
// "quota" admits the first `calls` calls of the pipeline built from it and
// refuses the rest with RESOURCE_EXHAUSTED; a reload builds a fresh quota.
// It has both forms (blocking Execute, asynchronous Start/Resume), JSON
// options with their errors, a writer for `config show`, events of its own
// policy id (kAdmitted, kRejected) and the two metric families they feed:
//
//   ASSERT_TRUE(testkit::RegisterQuotaPolicy().ok());
//   {"stages": [{"quota": {"calls": 100}}, "retry"]}
//   // scrape: stormguard_quota_admitted_total{name="..."} 100, stormguard_quota_rejected_total ...
#pragma once

#include <any>
#include <atomic>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "stormguard/config/stage_policy.h"
#include "stormguard/core/events.h"
#include "stormguard/metrics/metric_family.h"
#include "stormguard/pipeline/async_stage.h"
#include "stormguard/pipeline/stage.h"

namespace stormguard::testkit {

struct QuotaOptions {
  std::int64_t calls = 1;
};

// The id its events carry, the same for every call.
inline PolicyId QuotaPolicyId() {
  static const PolicyId id = RegisterPolicyName("quota").value();
  return id;
}

class QuotaStage final : public Stage, public AsyncStage {
 public:
  QuotaStage(QuotaOptions o, Listener* listener) : left_(o.calls), listener_(listener) {}

  std::string_view name() const noexcept override { return "quota"; }
  StagePlacement placement() const noexcept override { return {.kind = "quota", .once = true}; }
  Status Execute(CallContext& ctx, Next next) const override {
    if (Status s = Admit(); !s.ok()) return s;
    return next(ctx);
  }
  const AsyncStage* async() const noexcept override { return this; }
  void Start(AsyncStep step) const override {
    if (Status s = Admit(); !s.ok()) return step.Finish(std::move(s));
    step.RunInner();
  }
  void Resume(AsyncStep step, Status inner) const override { step.Finish(std::move(inner)); }

 private:
  Status Admit() const {
    if (left_.fetch_sub(1, std::memory_order_relaxed) > 0) {
      Emit(listener_, Event{.kind = EventKind::kAdmitted, .policy = QuotaPolicyId()});
      return Status::Ok();
    }
    Emit(listener_, Event{.kind = EventKind::kRejected, .policy = QuotaPolicyId(), .reason = "quota spent"});
    return Status::ResourceExhausted("quota spent").WithSource(name());
  }
  mutable std::atomic<std::int64_t> left_;
  Listener* listener_;
};

inline std::any ReadQuota(const nlohmann::json& j, const std::string& path, std::vector<std::string>& errors) {
  QuotaOptions o;
  if (!j.is_object()) {
    errors.push_back(path + ": must be an object");
    return o;
  }
  for (const auto& [key, value] : j.items()) {
    if (key != "calls") {
      errors.push_back(path + "." + key + ": unknown field");
    } else if (!value.is_number_integer() || value.get<std::int64_t>() < 0 ||
               value.get<std::int64_t>() > 1'000'000'000) {
      errors.push_back(path + ".calls: must be an integer in [0, 1000000000]");
    } else {
      o.calls = value.get<std::int64_t>();
    }
  }
  return o;
}

inline config::StagePolicy QuotaPolicy() {
  return {
      .name = "quota",
      .defaults = QuotaOptions{},
      .read = ReadQuota,
      .write =
          [](const std::any& o) {
            return nlohmann::json{{"calls", std::any_cast<const QuotaOptions&>(o).calls}};
          },
      .placement = [](const std::any&) { return StagePlacement{.kind = "quota", .once = true}; },
      .build =
          [](const std::any& o, config::StageBuildContext& ctx) {
            ctx.builder.Add(std::make_shared<QuotaStage>(std::any_cast<const QuotaOptions&>(o), ctx.pipeline.listener));
          },
      .metric_families = {{.name = "stormguard_quota_admitted_total",
                           .help = "Calls the quota let through.",
                           .policy = QuotaPolicyId(),
                           .kinds = {EventKind::kAdmitted}},
                          {.name = "stormguard_quota_rejected_total",
                           .help = "Calls the quota refused.",
                           .policy = QuotaPolicyId(),
                           .kinds = {EventKind::kRejected}}}};
}

// Registers "quota" once per process; later calls find it registered.
inline Status RegisterQuotaPolicy() {
  static const Status registered = config::RegisterStagePolicy(QuotaPolicy());
  return registered;
}

}  // namespace stormguard::testkit
