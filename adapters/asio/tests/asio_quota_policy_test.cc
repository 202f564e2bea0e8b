// The quota policy defined in the test tree (tests/policies/quota_policy.h),
// built by the registry from JSON and run by the Asio coroutine driver: the
// third of the three drivers (the blocking and completion drivers are in
// tests/policies/quota_policy_test.cc).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <vector>

#include "policies/quota_policy.h"
#include "stormguard/asio/coroutine_driver.h"
#include "stormguard/config/registry.h"

namespace stormguard::testkit {
namespace {

TEST(AsioQuotaPolicyTest, TheRegistryBuildsItForTheCoroutineDriver) {
  ASSERT_TRUE(RegisterQuotaPolicy().ok());
  config::Registry registry;
  ASSERT_TRUE(registry
                  .Apply(R"({"destinations": {"inventory": {"pipeline": {"stages": [
                      {"quota": {"calls": 2}}, {"retry": {"max_attempts": 2}}]}}}})",
                         "test")
                  .ok());
  const PipelineRef p = registry.Get("inventory");
  asio::io_context io;
  std::vector<StatusCode> codes;
  auto three_calls = [&]() -> asio::awaitable<void> {
    for (int i = 0; i < 3; ++i) {
      CallContext ctx;
      Status s = co_await p.Execute(ctx, [](CallContext&) -> asio::awaitable<Status> { co_return Status::Ok(); });
      codes.push_back(s.code());
    }
  };
  asio::co_spawn(io, three_calls(), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io.run();
  EXPECT_THAT(codes, ::testing::ElementsAre(StatusCode::kOk, StatusCode::kOk, StatusCode::kResourceExhausted));
}

}  // namespace
}  // namespace stormguard::testkit
