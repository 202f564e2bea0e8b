// The demo's stormguard mode takes its pipelines from tools/demo/stormguard.json.
#include "demo/demo_config.h"

#include <gtest/gtest.h>

#include "stormguard/config/config_json.h"

namespace stormguard::demo {
namespace {

TEST(DemoConfigTest, TheShippedFileConfiguresEveryDestinationTheDemoUses) {
  const config::ParsedConfig parsed = config::ParseConfigText(DemoConfigText());
  ASSERT_TRUE(parsed.errors.empty()) << parsed.errors.front();
  for (const char* name : {"relay", "bottom", "inbound"}) {
    EXPECT_TRUE(parsed.config.destinations.contains(name)) << name;
  }
}

TEST(DemoConfigTest, TheRegistryServesTheFilesPipelinesNotTheBuiltInDefault) {
  const config::Registry& registry = DemoRegistry();
  EXPECT_EQ(registry.version(), 1U);
  EXPECT_FALSE(registry.on_defaults());
  const auto fallback = registry.Get("a destination the file does not name");
  for (const char* name : {"relay", "bottom", "inbound"}) {
    EXPECT_NE(registry.Get(name), fallback) << name;
  }
  EXPECT_NE(registry.Get("relay"), registry.Get("bottom"));
}

}  // namespace
}  // namespace stormguard::demo
