// A chaos stage switched on by rewriting the watched file: the path an
// operator takes to start a rehearsal (FileSource -> ReloadInto -> Registry).
#include <gtest/gtest.h>

#include "sink_recorder.h"
#include "stormguard/config_sources/file_source.h"
#include "stormguard/config_sources/reload_into.h"
#include "stormguard/pipeline/stages/chaos_stage.h"
#include "temp_dir.h"

namespace stormguard::config_sources {
namespace {

using testkit::SinkRecorder;
using testkit::TempDir;

std::string Doc(bool enabled) {
  return R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": 1}},
      {"chaos": {"kind": "error", "rate": 1, "enabled": )" +
         std::string(enabled ? "true" : "false") + "}}]}}}}";
}

const ChaosPolicy* PolicyOf(const Pipeline& p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (const auto* chaos = dynamic_cast<const ChaosStage*>(&p.stage(i))) return &chaos->policy();
  }
  return nullptr;
}

TEST(FileChaosSwitchTest, RewritingTheFileSwitchesThePolicyInUse) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, Doc(false));
  ManualClock clock{TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep};
  auto timers = TimerService::Create(clock, {.background_thread = false}).value();
  auto executor = Executor::Create({.threads = 1, .timers = timers.get()}).value();
  config::Registry registry({.allow_chaos = true});  // a rehearsal: this process takes chaos from its file
  SinkRecorder applied;                              // sees each version after the registry has
  auto source =
      FileSource::Start({.path = path, .executor = executor},
                        [reload = ReloadInto(registry, "file"), seen = applied.sink()](Result<ConfigUpdate> u) {
                          reload(u);
                          seen(std::move(u));
                        });
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  ASSERT_EQ(registry.version(), 1U);
  const ChaosPolicy* policy = PolicyOf(*registry.Get("inventory"));
  ASSERT_NE(policy, nullptr);
  CallContext ctx;
  EXPECT_TRUE(registry.Get("inventory")->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok());

  dir.WriteByRename(path, Doc(true));
  clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(applied.WaitForText(Doc(true)));
  (*source)->Stop();
  EXPECT_EQ(registry.version(), 2U);
  EXPECT_EQ(PolicyOf(*registry.Get("inventory")), policy);
  CallContext next;
  const Status s = registry.Get("inventory")->Execute(next, [](CallContext&) { return Status::Ok(); });
  EXPECT_EQ(s.source(), ChaosPolicy::kPolicy) << s.ToString();
}

}  // namespace
}  // namespace stormguard::config_sources
