// The registry's lookup: method entries in gRPC's order, the destination's
// own pipeline, the built-in default; what a handle keeps alive.
#include <gtest/gtest.h>

#include <thread>

#include "registry_test_util.h"

namespace stormguard::config {
namespace {
using testkit::Describe;
using testkit::RegistryEnv;

constexpr std::string_view kConfig = R"({"destinations": {
  "inventory": {
    "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, {"retry": {"max_attempts": 2}}]},
    "methods": {
      "pkg.Stock/Get": {"timeout": "100ms"},
      "pkg.Stock/*": {"timeout": "200ms"},
      "*": {"timeout": "300ms"},
      "pkg.Plain/Same": {}}},
  "bare": {"pipeline": {"stages": []},
           "methods": {"GET /x": {"retry": {"max_attempts": 4}, "hedge": {"delay": "5ms"}}}}}})";

class RegistryLookupTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};
  void SetUp() override { ASSERT_TRUE(registry.Apply(kConfig, "test").ok()); }
};

TEST_F(RegistryLookupTest, ExactThenServiceThenStarThenDestination) {
  EXPECT_EQ(Describe(registry.Get("inventory", "pkg.Stock/Get")), "timeout(100ms) -> retry(2 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get("inventory", "pkg.Stock/Put")), "timeout(200ms) -> retry(2 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get("inventory", "pkg.Other/Get")), "timeout(300ms) -> retry(2 attempts) -> call");
  EXPECT_EQ(Describe(registry.Get("inventory", "no-slash")), "timeout(300ms) -> retry(2 attempts) -> call");
  // Only an exact entry, a service wildcard or "*" match; a prefix does not.
  EXPECT_EQ(Describe(registry.Get("inventory", "pkg.Stock/GetMore")), "timeout(200ms) -> retry(2 attempts) -> call");
}

TEST_F(RegistryLookupTest, DestinationWithoutAMatchingEntryRunsItsOwnPipeline) {
  EXPECT_EQ(Describe(registry.Get("bare", "GET /y")), "call");
  EXPECT_EQ(Describe(registry.Get("bare")), "call");
}

TEST_F(RegistryLookupTest, AnEntryThatChangesNothingSharesTheDestinationsPipeline) {
  Registry r(env.Options());
  ASSERT_TRUE(r.Apply(R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {}}]},
                          "methods": {"pkg.S/Same": {}}}}})",
                      "test")
                  .ok());
  EXPECT_EQ(r.Get("d", "pkg.S/Same").get(), r.Get("d").get());
}

TEST_F(RegistryLookupTest, MethodOverridesAreAddedWhereTheyBelong) {
  // No timeout or retry in the pipeline: the retry goes outermost, the hedge inside it.
  EXPECT_EQ(Describe(registry.Get("bare", "GET /x")), "retry(4 attempts) -> hedge(1 after 5ms) -> call");
}

TEST_F(RegistryLookupTest, UnknownDestinationsGetTheBuiltInDefault) {
  EXPECT_EQ(Describe(registry.Get("elsewhere", "pkg.Stock/Get")), "retry(3 attempts, budget token_bucket) -> call");
  EXPECT_EQ(registry.Get("elsewhere").get(), registry.Get("another").get());
}

TEST_F(RegistryLookupTest, GetIsTheSameOnEveryThreadAndForEveryCaller) {
  EXPECT_EQ(registry.Get("inventory", "pkg.Stock/Get").get(), registry.Get("inventory", "pkg.Stock/Get").get());
}

TEST(RegistryDefaultsTest, ANewRegistryRunsOnTheBuiltInDefaultAndSaysSo) {
  RegistryEnv env;
  Registry registry(env.Options());
  EXPECT_TRUE(registry.on_defaults());
  EXPECT_EQ(registry.version(), 0u);
  EXPECT_EQ(env.events, std::vector<std::string>{"accepted v0 defaults built-in default"});
  EXPECT_EQ(Describe(registry.Get("anything", "any/method")), "retry(3 attempts, budget token_bucket) -> call");
}

TEST(RegistryDefaultsTest, TheBuiltInDefaultRetriesTransientFailuresWithinItsBudget) {
  RegistryEnv env;
  Registry registry(env.Options());
  int calls = 0;
  EXPECT_FALSE(testkit::Call(*registry.Get("x"), Status::Unavailable("down"), &calls).ok());
  EXPECT_EQ(calls, 3);
}

TEST(RegistryHandleTest, AHandleKeepsItsPipelineAfterAReload) {
  RegistryEnv env;
  Registry registry(env.Options());
  ASSERT_TRUE(registry
                  .Apply(R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"max_attempts": 2}}]}}}})", "v1")
                  .ok());
  PipelineRef old = registry.Get("d");
  ASSERT_TRUE(registry
                  .Apply(R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"max_attempts": 5}}]}}}})", "v2")
                  .ok());
  // The next Get on this thread drops its reference to the first config.
  EXPECT_EQ(Describe(registry.Get("d")), "retry(5 attempts) -> call");
  int calls = 0;
  EXPECT_FALSE(testkit::Call(*old, Status::Unavailable("down"), &calls).ok());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(Describe(old), "retry(2 attempts) -> call");
}

TEST(RegistryHandleTest, AHandleOutlivesTheRegistry) {
  RegistryEnv env;
  PipelineRef kept;
  {
    Registry registry(env.Options());
    ASSERT_TRUE(registry.Apply(R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {}}]}}}})", "v1").ok());
    kept = registry.Get("d");
  }
  EXPECT_EQ(Describe(kept), "retry(3 attempts) -> call");
}

TEST(RegistryHandleTest, AHandleEndsOnAnotherThread) {
  RegistryEnv env;
  Registry registry(env.Options());
  PipelineRef handle = registry.Get("d");
  ASSERT_TRUE(registry.Apply(R"({"destinations": {}})", "v1").ok());
  std::thread([h = std::move(handle)]() mutable {
    EXPECT_TRUE(testkit::Call(*h, Status::Ok()).ok());
    h.reset();
  }).join();
  EXPECT_EQ(Describe(registry.Get("d")), "retry(3 attempts, budget token_bucket) -> call");
}

}  // namespace
}  // namespace stormguard::config
