// A preset a program defines in its own tree, in the JSON format of the
// library's presets: named by a configuration, built by the registry, shown
// by `config show`, with no library file changed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "config_show.h"
#include "stormguard/config/config_json.h"
#include "stormguard/config/preset.h"
#include "stormguard/config/registry.h"

namespace stormguard::testkit {
namespace {

using ::testing::HasSubstr;

constexpr const char* kNightlyExport = R"({
  "name": "nightly_export",
  "about": "A batch export: retried with backoff, optionally behind the destination's bulkhead.",
  "parameters": {"attempt_timeout": "20s", "max_attempts": 4, "guarded": false},
  "stages": [{"retry": {"max_attempts": "$max_attempts", "idempotent": true,
                        "backoff": {"kind": "constant", "base": "1ms"}}},
             {"when": "guarded", "stage": "bulkhead"},
             {"attempt_timeout": {"timeout": "$attempt_timeout"}}],
  "components": {"bulkhead": {"max_concurrent": 3}}
})";

constexpr const char* kExportConfig =
    R"({"destinations": {"exports": {"pipeline": {"nightly_export": {"max_attempts": 6, "guarded": true}}}}})";

class ExportPresetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const Status s = config::RegisterPreset(kNightlyExport);
    ASSERT_TRUE(s.ok() || s.code() == StatusCode::kAlreadyExists) << s.ToString();
  }
};

TEST_F(ExportPresetTest, ItIsRegisteredOnce) {
  EXPECT_EQ(config::RegisterPreset(kNightlyExport).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(config::PresetNames().back(), "nightly_export");
}

TEST_F(ExportPresetTest, AConfigurationNamesItAndWritesItBackWithEveryParameter) {
  const Result<config::Config> c = config::ParseConfig(kExportConfig);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_THAT(config::ToJson(*c), HasSubstr(R"("nightly_export": {
          "attempt_timeout": "20s",
          "guarded": true,
          "max_attempts": 6
        })"));
  const config::ParsedConfig bad = config::ParseConfigText(
      R"({"destinations": {"exports": {"pipeline": {"nightly_export": {"max_attempts": 0}}}}})");
  EXPECT_THAT(bad.errors, ::testing::Contains("destinations.exports.pipeline.nightly_export.max_attempts: must be "
                                              "at least 1"));
}

TEST_F(ExportPresetTest, TheRegistryBuildsItWithTheComponentItBrings) {
  config::Registry registry;
  ASSERT_TRUE(registry.Apply(kExportConfig, "test").ok());
  PipelineRef p = registry.Get("exports");
  EXPECT_EQ(p.Describe(), "retry(6 attempts) -> bulkhead(3) -> attempt_timeout(20s) -> call");
  CallContext ctx;
  int calls = 0;
  const Status s = p.Execute(ctx, [&](CallContext&) {
    ++calls;
    return Status::Unavailable("export target down");
  });
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(calls, 6);
}

TEST_F(ExportPresetTest, ConfigShowExpandsIt) {
  std::string out;
  const Status s =
      cli::ShowEffective(config::ParseConfigText(kExportConfig), true, [&](std::string_view part) { out += part; });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_THAT(out, HasSubstr(R"("nightly_export")"));
  EXPECT_THAT(out, HasSubstr("bulkhead: nightly_export's own (the destination configures none)"));
  EXPECT_THAT(out, HasSubstr(R"("max_concurrent": 3)"));
}

}  // namespace
}  // namespace stormguard::testkit
