// tests/config/registry_test_util.h: a registry on a manual clock, and
// calls through it that count how often the callable ran.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/config/registry.h"

namespace stormguard::pipeline_internal {
struct PipelineRefPeer {
  static const void* Reference(const PipelineRef& p) { return p.count_; }
};
}  // namespace stormguard::pipeline_internal

namespace stormguard::config::testkit {

// The reference `p` counts on: handles of one thread between two reloads share one.
inline const void* ReferenceOf(const PipelineRef& p) { return pipeline_internal::PipelineRefPeer::Reference(p); }

struct RegistryEnv {
  ManualClock clock;
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();
  std::vector<std::string> events;  // "accepted v1 origin", "rejected v0 origin: e1; e2"

  RegistryOptions Options(bool allow_chaos = false) {
    return {.pipeline = {.clock = &clock, .timers = timers.get()},
            .on_reload =
                [this](const ReloadEvent& e) {
                  std::string line = std::string(e.accepted ? "accepted" : "rejected") + " v" +
                                     std::to_string(e.version) + (e.on_defaults ? " defaults " : " ") +
                                     std::string(e.origin);
                  for (std::size_t i = 0; i < e.errors.size(); ++i) line += (i == 0 ? ": " : "; ") + e.errors[i];
                  events.push_back(std::move(line));
                },
            .allow_chaos = allow_chaos};
  }
};

// One destination "d" with `components` and two stages: a retry of
// `attempts` without backoff, then the shared guard `guard`.
inline std::string RetriedGuardDest(std::string_view components, std::string_view guard, int attempts) {
  return R"({"destinations": {"d": {)" + std::string(components) +
         R"(, "pipeline": {"stages": [{"retry": {"max_attempts": )" + std::to_string(attempts) +
         R"(, "backoff": {"kind": "constant", "base": "0s"}}}, ")" + std::string(guard) + R"("]}}}})";
}

// Runs one call that answers `answer`; counts the attempts in `*calls`.
inline Status Call(const Pipeline& p, Status answer, int* calls = nullptr) {
  CallContext ctx;
  return p.Execute(ctx, [&](CallContext&) {
    if (calls != nullptr) ++*calls;
    return answer;
  });
}

inline Status Call(const PipelineRef& p, Status answer, int* calls = nullptr) {
  return Call(*p, std::move(answer), calls);
}

inline std::string Describe(const PipelineRef& p) { return p->Describe(); }

// The first stage of type S in `p`, or null.
template <class S>
const S* StageOf(const Pipeline& p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (const auto* s = dynamic_cast<const S*>(&p.stage(i))) return s;
  }
  return nullptr;
}

}  // namespace stormguard::config::testkit
