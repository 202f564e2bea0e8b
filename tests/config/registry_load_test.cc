// Reloads under load: two threads call through the registry while the
// configuration changes 1,000 times. No call may fail because of a reload,
// and the breaker that is open stays open. Runs under TSan in CI.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "registry_test_util.h"
#include "stormguard/config/config_json.h"

namespace stormguard::config {
namespace {
using testkit::RegistryEnv;

// "live" answers; "dead" has a breaker that the test opens first (no retry:
// on the manual clock a retry would sleep through the open wait). Versions
// differ only in the retry's attempts and the methods' timeouts, so every
// component keeps its options.
std::string Version(int i) {
  const std::string attempts = std::to_string(2 + i % 3);
  return R"({"destinations": {
    "live": {"retry_budget": {"token_bucket": {}},
             "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, {"retry": {"max_attempts": )" +
         attempts + R"(}}]},
             "methods": {"pkg.S/*": {"timeout": ")" +
         std::to_string(100 + i % 2) + R"(ms"}}},
    "dead": {"circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2},
             "pipeline": {"stages": ["circuit_breaker"]},
             "methods": {"pkg.S/*": {"timeout": ")" +
         std::to_string(100 + i % 2) + R"(ms"}}}}})";
}

TEST(RegistryLoadTest, AThousandReloadsWhileTwoThreadsCall) {
  RegistryEnv env;
  Registry registry(env.Options());
  ASSERT_TRUE(registry.Apply(Version(0), "v0").ok());
  for (int i = 0; i < 2; ++i) (void)testkit::Call(*registry.Get("dead"), Status::Unavailable("down"));

  std::atomic<bool> done{false};
  std::atomic<int> live_failures{0}, dead_attempts{0}, calls{0};
  auto caller = [&](std::string_view method) {
    // Bounded: the reloads end long before, but a hang must not outlast the test.
    for (int n = 0; n < 2'000'000 && !done.load(std::memory_order_acquire); ++n) {
      CallContext ctx;
      PipelineRef live = registry.Get("live", method);
      if (!live->Execute(ctx, [](CallContext&) { return Status::Ok(); }).ok()) ++live_failures;
      int attempts = 0;
      (void)testkit::Call(*registry.Get("dead", method), Status::Unavailable("down"), &attempts);
      dead_attempts += attempts;
      ++calls;
      std::this_thread::yield();  // three busy threads share two cores here: let the reloads run
    }
  };
  std::thread a(caller, "pkg.S/Get");
  std::thread b(caller, "other");
  // Six versions, parsed once: the test is about swapping, and under TSan
  // parsing 1,000 documents would take most of its time.
  std::vector<Config> versions;
  for (int i = 0; i < 6; ++i) versions.push_back(ParseConfig(Version(i)).value());
  int rejected = 0;
  for (int i = 1; i <= 1000; ++i) {
    if (!registry.Apply(versions[static_cast<std::size_t>(i % 6)], "reload").ok()) ++rejected;
  }
  done = true;
  a.join();
  b.join();

  EXPECT_EQ(rejected, 0);
  EXPECT_EQ(registry.version(), 1001u);
  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(live_failures.load(), 0);
  EXPECT_EQ(dead_attempts.load(), 0) << "a reload closed the open breaker";
}

}  // namespace
}  // namespace stormguard::config
