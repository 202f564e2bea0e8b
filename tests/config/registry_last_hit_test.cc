// Each thread remembers its last lookup: a repeated Get must still answer
// exactly what a fresh lookup would, whatever names come next and whatever
// the configuration became.
#include <gtest/gtest.h>

#include <string>

#include "registry_test_util.h"

namespace stormguard::config {
namespace {
using testkit::Describe;
using testkit::RegistryEnv;

constexpr std::string_view kDefault = "retry(3 attempts, budget token_bucket) -> call";

// Destinations "svc-1" and "svc-2" (same length), and methods "GET /a" and
// "GET /b" (same length) of svc-1 with pipelines of their own.
constexpr std::string_view kTwins = R"({"destinations": {
  "svc-1": {"pipeline": {"stages": [{"retry": {"max_attempts": 2}}]},
            "methods": {"GET /a": {"timeout": "1s"}, "GET /b": {"timeout": "2s"}}},
  "svc-2": {"pipeline": {"stages": [{"retry": {"max_attempts": 3}}]}},
  "ab": {"pipeline": {"stages": [{"retry": {"max_attempts": 4}}]}},
  "a": {"pipeline": {"stages": [{"retry": {"max_attempts": 5}}]}}}})";

class RegistryLastHitTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};
  void Apply(std::string_view text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
};

TEST_F(RegistryLastHitTest, NamesOfTheSameLengthDoNotAlias) {
  Apply(kTwins);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(Describe(registry.Get("svc-1", "GET /a")), "timeout(1s) -> retry(2 attempts) -> call");
    EXPECT_EQ(Describe(registry.Get("svc-1", "GET /a")), "timeout(1s) -> retry(2 attempts) -> call");
    EXPECT_EQ(Describe(registry.Get("svc-2", "GET /a")), "retry(3 attempts) -> call");
    EXPECT_EQ(Describe(registry.Get("svc-1", "GET /b")), "timeout(2s) -> retry(2 attempts) -> call");
    EXPECT_EQ(Describe(registry.Get("svc-1", "GET /c")), "retry(2 attempts) -> call");
  }
}

TEST_F(RegistryLastHitTest, TheSameBytesSplitDifferentlyAreDifferentNames) {
  Apply(kTwins);
  EXPECT_EQ(Describe(registry.Get("ab", "c")), "retry(4 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get("a", "bc")), "retry(5 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get("ab", "c")), "retry(4 attempts) -> call");
}

TEST_F(RegistryLastHitTest, ACallerReusingItsBufferGetsTheNewName) {
  Apply(kTwins);
  std::string destination = "svc-1";
  EXPECT_EQ(Describe(registry.Get(destination)), "retry(2 attempts) -> call");
  destination[4] = '2';  // same pointer, same length, other contents
  EXPECT_EQ(Describe(registry.Get(destination)), "retry(3 attempts) -> call");
}

TEST_F(RegistryLastHitTest, AReloadForgetsTheLastHit) {
  Apply(kTwins);
  EXPECT_EQ(Describe(registry.Get("svc-2", "GET /a")), "retry(3 attempts) -> call");
  Apply(R"({"destinations": {"svc-2": {"pipeline": {"stages": [{"retry": {"max_attempts": 4}}]}}}})");
  EXPECT_EQ(Describe(registry.Get("svc-2", "GET /a")), "retry(4 attempts) -> call");
}

TEST_F(RegistryLastHitTest, AReloadForgetsTheLastHitWhenTheNextNamesAreTooLongToRemember) {
  Apply(kTwins);
  EXPECT_EQ(Describe(registry.Get("svc-2")), "retry(3 attempts) -> call");
  Apply(R"({"destinations": {"svc-2": {"pipeline": {"stages": [{"retry": {"max_attempts": 4}}]}}}})");
  EXPECT_EQ(Describe(registry.Get(std::string(200, 'x'))), kDefault);  // the first lookup since the reload
  EXPECT_EQ(Describe(registry.Get("svc-2")), "retry(4 attempts) -> call");
}

TEST_F(RegistryLastHitTest, ADestinationTheConfigurationDropsFallsToTheDefault) {
  Apply(kTwins);
  EXPECT_EQ(Describe(registry.Get("svc-2")), "retry(3 attempts) -> call");
  Apply(R"({"destinations": {"svc-1": {"pipeline": {"stages": []}}}})");
  EXPECT_EQ(Describe(registry.Get("svc-2")), kDefault);
  EXPECT_EQ(Describe(registry.Get("svc-1")), "call");
}

TEST_F(RegistryLastHitTest, NamesTooLongToRememberAreStillLookedUp) {
  const std::string long_name(200, 'x');
  Apply(R"({"destinations": {")" + long_name + R"(": {"pipeline": {"stages": []}},
             "svc-2": {"pipeline": {"stages": [{"retry": {"max_attempts": 3}}]}}}})");
  EXPECT_EQ(Describe(registry.Get("svc-2")), "retry(3 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get(long_name)), "call");
  EXPECT_EQ(Describe(registry.Get("svc-2")), "retry(3 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get(long_name, long_name)), "call");
  EXPECT_EQ(Describe(registry.Get(long_name.substr(1))), kDefault);
}

}  // namespace
}  // namespace stormguard::config
