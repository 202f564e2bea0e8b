// Policy ids: the library's own are fixed and named like its policies; a
// program's name gets one id for good, from the reserved range, up to a bound.
#include "stormguard/core/policy_id.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "stormguard/chaos/chaos_policy.h"
#include "stormguard/guard/adaptive_concurrency.h"
#include "stormguard/guard/bulkhead.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/guard/rate_limiter.h"
#include "stormguard/guard/time_limiter.h"
#include "stormguard/pipeline/stages/timeout_stage.h"

namespace stormguard {
namespace {

// The names events print are the names the policies give themselves
// (Status::source(), stage names).
TEST(PolicyIdTest, TheLibrarysPoliciesAreNamedAsThemselves) {
  EXPECT_EQ(PolicyName(PolicyId::kNone), "");
  EXPECT_EQ(PolicyName(PolicyId::kPipeline), "pipeline");
  EXPECT_EQ(PolicyName(PolicyId::kRetry), "retry");
  EXPECT_EQ(PolicyName(PolicyId::kHedge), "hedge");
  EXPECT_EQ(PolicyName(PolicyId::kCircuitBreaker), kCircuitBreakerPolicy);
  EXPECT_EQ(PolicyName(PolicyId::kBulkhead), Bulkhead::kPolicy);
  EXPECT_EQ(PolicyName(PolicyId::kRateLimiter), RateLimiter::kPolicy);
  EXPECT_EQ(PolicyName(PolicyId::kAdaptiveConcurrency), AdaptiveLimiter::kPolicy);
  EXPECT_EQ(PolicyName(PolicyId::kTimeout), TimeoutStage::kOverall.kind);
  EXPECT_EQ(PolicyName(PolicyId::kAttemptTimeout), TimeoutStage::kPerAttempt.kind);
  EXPECT_EQ(PolicyName(PolicyId::kFallback), "fallback");
  EXPECT_EQ(PolicyName(PolicyId::kChaos), ChaosPolicy::kPolicy);
  EXPECT_EQ(PolicyName(PolicyId::kIdempotencyKey), "idempotency_key");
  EXPECT_EQ(PolicyName(PolicyId::kTimeLimiter), TimeLimiter::kPolicy);
  for (int i = 1; i < kBuiltInPolicyCount; ++i) {
    const auto id = static_cast<PolicyId>(i);
    Result<PolicyId> again = RegisterPolicyName(PolicyName(id));
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(*again, id) << PolicyName(id);  // a library name is never a program's
  }
}

TEST(PolicyIdTest, AProgramsNameGetsOneIdFromTheReservedRange) {
  Result<PolicyId> a = RegisterPolicyName("policy_id_test_a");
  Result<PolicyId> b = RegisterPolicyName("policy_id_test_b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GE(static_cast<int>(*a), static_cast<int>(PolicyId::kFirstProgramPolicy));
  EXPECT_NE(*a, *b);
  EXPECT_EQ(*RegisterPolicyName("policy_id_test_a"), *a);  // the same name, the same id
  EXPECT_EQ(PolicyName(*a), "policy_id_test_a");
  EXPECT_EQ(PolicyName(*b), "policy_id_test_b");
  EXPECT_GE(PolicyIndex(*a), kBuiltInPolicyCount);
  EXPECT_LT(PolicyIndex(*a), kPolicyIndexCount);
}

TEST(PolicyIdTest, IndexesAreDenseAndOutsideIdsHaveNone) {
  std::set<int> seen;
  for (int i = 0; i < kBuiltInPolicyCount; ++i) seen.insert(PolicyIndex(static_cast<PolicyId>(i)));
  for (int i = 0; i < kMaxProgramPolicies; ++i) {
    seen.insert(PolicyIndex(static_cast<PolicyId>(static_cast<int>(PolicyId::kFirstProgramPolicy) + i)));
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kPolicyIndexCount));
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), kPolicyIndexCount - 1);
  EXPECT_EQ(PolicyIndex(static_cast<PolicyId>(kBuiltInPolicyCount)), -1);
  EXPECT_EQ(PolicyIndex(static_cast<PolicyId>(static_cast<int>(PolicyId::kFirstProgramPolicy) + kMaxProgramPolicies)),
            -1);
  EXPECT_EQ(PolicyName(static_cast<PolicyId>(0xffff)), "unknown");
  const auto last = static_cast<PolicyId>(static_cast<int>(PolicyId::kFirstProgramPolicy) + kMaxProgramPolicies - 1);
  EXPECT_EQ(PolicyName(last), "unknown");  // never handed out (this binary registers far fewer)
}

TEST(PolicyIdTest, ABadNameIsRefusedNamingIt) {
  using namespace std::string_view_literals;
  for (std::string_view bad : {""sv, "Quota"sv, "quo ta"sv, "quota-2"sv, "q\0"sv}) {
    Result<PolicyId> r = RegisterPolicyName(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("policy name: must be 1 to 64 of [a-z0-9_]"), std::string::npos);
  }
  EXPECT_FALSE(RegisterPolicyName(std::string(65, 'a')).ok());
  EXPECT_TRUE(RegisterPolicyName(std::string(64, 'a')).ok());
}

// In a child process: the table is the process's, and this fills it.
TEST(PolicyIdTest, IdsRunOutWithAClearError) {
  EXPECT_EXIT(
      {
        Status last;
        for (int i = 0; i <= kMaxProgramPolicies && last.ok(); ++i) {
          last = RegisterPolicyName("bound_" + std::to_string(i)).status();
        }
        const bool clear =
            last.code() == StatusCode::kResourceExhausted &&
            last.message().find("all 64 ids for a program's own policies are taken") != std::string::npos;
        const bool kept = RegisterPolicyName("bound_0").ok();  // registered names keep their ids
        std::_Exit(clear && kept ? 0 : 1);                     // no exit handlers: a forked child's leak check is false
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace stormguard
