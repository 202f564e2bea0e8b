// Component state across reloads: kept when the component's options are
// unchanged, fresh when they change.
#include <gtest/gtest.h>

#include <string>

#include "registry_test_util.h"

namespace stormguard::config {
namespace {
using testkit::Call;
using testkit::RegistryEnv;

// One destination "d" with `components` and `stages`.
std::string Dest(const std::string& components, const std::string& stages) {
  return R"({"destinations": {"d": {)" + components + R"(, "pipeline": {"stages": [)" + stages + "]}}}}";
}

class RegistryReloadTest : public ::testing::Test {
 protected:
  RegistryEnv env;
  Registry registry{env.Options()};

  void Apply(const std::string& text) { ASSERT_TRUE(registry.Apply(text, "test").ok()) << text; }
  // Attempts one failing call makes through "d".
  int FailingAttempts() {
    int calls = 0;
    (void)Call(*registry.Get("d"), Status::Unavailable("down"), &calls);
    return calls;
  }
};

TEST_F(RegistryReloadTest, AnOpenBreakerStaysOpenWhenItsOptionsAreUnchanged) {
  const std::string breaker = R"("circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2})";
  Apply(Dest(breaker, R"({"timeout": {"timeout": "1s"}}, "circuit_breaker")"));
  EXPECT_EQ(FailingAttempts() + FailingAttempts(), 2);  // the window fills with failures: open
  EXPECT_EQ(FailingAttempts(), 0);

  Apply(Dest(breaker, R"({"timeout": {"timeout": "2s"}}, "circuit_breaker")"));
  EXPECT_EQ(FailingAttempts(), 0) << "the reload closed the breaker";

  Apply(Dest(R"("circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2, "wait_in_open": "20s"})",
             R"({"timeout": {"timeout": "2s"}}, "circuit_breaker")"));
  EXPECT_EQ(FailingAttempts(), 1) << "changed options must give a fresh breaker";
}

TEST_F(RegistryReloadTest, SpentBudgetTokensStaySpentWhenTheBudgetIsUnchanged) {
  const std::string budget = R"("retry_budget": {"token_bucket": {"max_tokens": 1, "token_ratio": 0}})";
  Apply(Dest(budget, R"({"retry": {"max_attempts": 3}})"));
  EXPECT_EQ(FailingAttempts(), 2);  // the one token buys one retry
  EXPECT_EQ(FailingAttempts(), 1);

  Apply(Dest(budget, R"({"retry": {"max_attempts": 4}})"));
  EXPECT_EQ(FailingAttempts(), 1) << "the reload refilled the budget";

  Apply(Dest(R"("retry_budget": {"token_bucket": {"max_tokens": 2, "token_ratio": 0}})",
             R"({"retry": {"max_attempts": 4}})"));
  EXPECT_EQ(FailingAttempts(), 3);
}

TEST_F(RegistryReloadTest, ABudgetOfAnotherKindIsFresh) {
  Apply(Dest(R"("retry_budget": {"token_bucket": {"max_tokens": 1, "token_ratio": 0}})",
             R"({"retry": {"max_attempts": 3}})"));
  EXPECT_EQ(FailingAttempts(), 2);
  Apply(Dest(R"("retry_budget": {"grpc_throttle": {"max_tokens": 10, "token_ratio": 0.1}})",
             R"({"retry": {"max_attempts": 3}})"));
  EXPECT_EQ(FailingAttempts(), 3);
}

TEST_F(RegistryReloadTest, BulkheadOccupancySurvivesAReloadThatKeepsIt) {
  const std::string bulkhead = R"("bulkhead": {"max_concurrent": 1})";
  Apply(Dest(bulkhead, R"("bulkhead")"));
  Status inner;
  int inner_calls = 0;
  auto nested = [&](const std::string& reload) {
    CallContext ctx;
    return registry.Get("d")->Execute(ctx, [&](CallContext&) {
      // The outer call holds the only slot while the configuration changes.
      EXPECT_TRUE(registry.Apply(reload, "test").ok());
      inner = Call(*registry.Get("d"), Status::Ok(), &inner_calls);
      return Status::Ok();
    });
  };
  EXPECT_TRUE(nested(Dest(bulkhead, R"({"timeout": {"timeout": "1s"}}, "bulkhead")")).ok());
  EXPECT_EQ(inner.code(), StatusCode::kResourceExhausted) << inner.ToString();
  EXPECT_EQ(inner_calls, 0);

  EXPECT_TRUE(nested(Dest(R"("bulkhead": {"max_concurrent": 1, "max_wait": "1ms"})", R"("bulkhead")")).ok());
  EXPECT_TRUE(inner.ok()) << "changed options must give a fresh bulkhead: " << inner.ToString();
}

TEST_F(RegistryReloadTest, RateLimiterTokensSurviveAReloadThatKeepsIt) {
  const std::string limiter = R"("rate_limiter": {"rate": 1, "burst": 1})";
  Apply(Dest(limiter, R"("rate_limiter")"));
  EXPECT_TRUE(Call(*registry.Get("d"), Status::Ok()).ok());
  EXPECT_FALSE(Call(*registry.Get("d"), Status::Ok()).ok());

  Apply(Dest(limiter, R"({"timeout": {"timeout": "1s"}}, "rate_limiter")"));
  EXPECT_FALSE(Call(*registry.Get("d"), Status::Ok()).ok()) << "the reload refilled the limiter";

  Apply(Dest(R"("rate_limiter": {"rate": 2, "burst": 1})", R"("rate_limiter")"));
  EXPECT_TRUE(Call(*registry.Get("d"), Status::Ok()).ok());
}

TEST_F(RegistryReloadTest, EveryMethodOfADestinationSharesItsComponents) {
  Apply(R"({"destinations": {"d": {"circuit_breaker": {"window_size": 2, "minimum_number_of_calls": 2},
      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}, "circuit_breaker"]},
      "methods": {"pkg.S/A": {"timeout": "100ms"}, "pkg.S/B": {"timeout": "200ms"}}}}})");
  int calls = 0;
  (void)Call(*registry.Get("d", "pkg.S/A"), Status::Unavailable("down"), &calls);
  (void)Call(*registry.Get("d", "pkg.S/B"), Status::Unavailable("down"), &calls);
  EXPECT_EQ(calls, 2);
  (void)Call(*registry.Get("d"), Status::Unavailable("down"), &calls);
  EXPECT_EQ(calls, 2) << "one breaker for the destination and both methods";
}

TEST_F(RegistryReloadTest, TheBuiltInDefaultsBudgetSurvivesReloads) {
  // 10 tokens: the first failing calls retry twice each, until the tokens run out.
  int total = 0;
  for (int i = 0; i < 6; ++i) total += FailingAttempts();
  Apply(R"({"destinations": {}})");
  for (int i = 0; i < 6; ++i) total += FailingAttempts();
  EXPECT_EQ(total, 12 + 10);
}

}  // namespace
}  // namespace stormguard::config
