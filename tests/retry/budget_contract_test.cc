// The contract every RetryBudget keeps, whatever its rule: one typed suite
// that each implementation passes. What differs between budgets (exact
// counts, their own options) stays in <budget>_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>

#include "core/thread_test_util.h"
#include "retry/budget_test_util.h"
#include "stormguard/retry/budgets.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using ::stormguard::testkit::kBudgetNow;
using ::stormguard::testkit::RunConcurrently;

// How the suite makes each budget: from its defaults, and from options its
// Validate() must refuse.
template <class Budget, class Options>
struct Maker {
  using Type = Budget;
  static std::shared_ptr<RetryBudget> Default() { return Budget::Create(Options{}).value(); }
};
struct TokenBucket : Maker<TokenBucketBudget, TokenBucketBudgetOptions> {
  static auto Invalid() { return TokenBucketBudget::Create({.max_tokens = -1}); }
};
struct GrpcThrottle : Maker<GrpcThrottleBudget, GrpcThrottleBudgetOptions> {
  static auto Invalid() { return GrpcThrottleBudget::Create({.token_ratio = 0}); }
};
struct Ratio : Maker<RatioBudget, RatioBudgetOptions> {
  static auto Invalid() { return RatioBudget::Create({.ttl = 0s}); }
};
struct Concurrency : Maker<ConcurrencyBudget, ConcurrencyBudgetOptions> {
  static auto Invalid() { return ConcurrencyBudget::Create({.retry_fraction = -1}); }
};
struct Gate : Maker<FailureRateGate, FailureRateGateOptions> {
  static auto Invalid() { return FailureRateGate::Create({.buckets = 0}); }
};

// One logical request as the retry driver runs it: attempt 1 ends with
// `first_ok`; a failure asks for one retry, which fails too.
bool RunRequest(RetryBudget& budget, TimePoint now, bool first_ok) {
  budget.OnRequestStart(now);
  bool retried = false;
  if (first_ok) {
    budget.RecordSuccess(now);
  } else {
    budget.RecordFailure(now);
    retried = budget.TryAcquireRetry(now);
    if (retried) {
      budget.RecordFailure(now);
      budget.OnRetryEnd(now);
    }
  }
  budget.OnRequestEnd(now);
  return retried;
}

template <class M>
class RetryBudgetContractTest : public ::testing::Test {};
using AllBudgets = ::testing::Types<TokenBucket, GrpcThrottle, Ratio, Concurrency, Gate>;
TYPED_TEST_SUITE(RetryBudgetContractTest, AllBudgets);

TYPED_TEST(RetryBudgetContractTest, InvalidOptionsAreRefusedByCreate) {
  auto created = TypeParam::Invalid();
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.status().code(), StatusCode::kInvalidArgument);
}

TYPED_TEST(RetryBudgetContractTest, AFreshBudgetLetsARetryThrough) {
  auto budget = TypeParam::Default();
  budget->OnRequestStart(kBudgetNow);
  budget->RecordFailure(kBudgetNow);
  EXPECT_TRUE(budget->TryAcquireRetry(kBudgetNow)) << budget->name();
}

// The budget's whole point: when everything fails at once, retries add at
// most a small share of load. 10,000 requests in flight together, so that a
// fixed reserve (the ratio budget's 100 per ttl) is small beside its share.
TYPED_TEST(RetryBudgetContractTest, AFailingBurstGetsAtMostAQuarterMoreLoad) {
  auto budget = TypeParam::Default();
  constexpr int kRequests = 10'000;
  for (int i = 0; i < kRequests; ++i) {
    budget->OnRequestStart(kBudgetNow);
    budget->RecordFailure(kBudgetNow);
  }
  int granted = 0;
  for (int i = 0; i < kRequests; ++i) granted += budget->TryAcquireRetry(kBudgetNow) ? 1 : 0;
  EXPECT_LE(granted, kRequests / 4) << budget->name();
}

TYPED_TEST(RetryBudgetContractTest, HealthyTrafficKeepsRetriesAvailable) {
  auto budget = TypeParam::Default();
  TimePoint now = kBudgetNow;
  for (int i = 0; i < 2000; ++i, now += 1ms) RunRequest(*budget, now, /*first_ok=*/true);
  EXPECT_TRUE(RunRequest(*budget, now, /*first_ok=*/false)) << budget->name();
}

// After a storm ends and the destination is healthy again for a while, the
// budget lets retries through again: nothing stays stuck.
TYPED_TEST(RetryBudgetContractTest, RecoversOnceFailuresStop) {
  auto budget = TypeParam::Default();
  TimePoint now = kBudgetNow;
  for (int i = 0; i < 5000; ++i, now += 1ms) RunRequest(*budget, now, /*first_ok=*/false);
  for (int i = 0; i < 60'000; ++i, now += 1ms) RunRequest(*budget, now, /*first_ok=*/true);
  EXPECT_TRUE(RunRequest(*budget, now, /*first_ok=*/false)) << budget->name();
}

// A clock that steps back (two threads reading it in turn) or starts before
// its epoch must not break the books.
TYPED_TEST(RetryBudgetContractTest, TimeGoingBackwardsOrBeforeTheEpochIsHarmless) {
  auto budget = TypeParam::Default();
  for (const TimePoint t : {kBudgetNow, kBudgetNow - 30s, TimePoint(-1h), TimePoint{}, kBudgetNow + 24h, kBudgetNow}) {
    RunRequest(*budget, t, /*first_ok=*/false);
    RunRequest(*budget, t, /*first_ok=*/true);
  }
  TimePoint now = kBudgetNow + 24h;
  for (int i = 0; i < 60'000; ++i, now += 1ms) RunRequest(*budget, now, /*first_ok=*/true);
  EXPECT_TRUE(RunRequest(*budget, now, /*first_ok=*/false)) << budget->name();
}

// Every thread follows the protocol; afterwards the budget behaves like one
// that saw the same calls in sequence (no count lost or left behind).
TYPED_TEST(RetryBudgetContractTest, ConcurrentCallersLeaveConsistentBooks) {
  auto budget = TypeParam::Default();
  std::atomic<int> granted{0};
  RunConcurrently(4, [&](int t) {
    TimePoint now = kBudgetNow;
    for (int i = 0; i < 5000; ++i, now += 1ms) granted += RunRequest(*budget, now, (i + t) % 4 != 0) ? 1 : 0;
  });
  EXPECT_GE(granted.load(), 1) << budget->name();
  EXPECT_LE(granted.load(), 5000) << budget->name() << ": at most one retry per failing request";
  TimePoint now = kBudgetNow + 5s;
  for (int i = 0; i < 60'000; ++i, now += 1ms) RunRequest(*budget, now, /*first_ok=*/true);
  EXPECT_TRUE(RunRequest(*budget, now, /*first_ok=*/false)) << budget->name();
}

TEST(RetryBudgetContractTest, EveryBudgetHasItsOwnName) {
  const std::set<std::string> names{std::string(TokenBucket::Default()->name()),
                                    std::string(GrpcThrottle::Default()->name()), std::string(Ratio::Default()->name()),
                                    std::string(Concurrency::Default()->name()), std::string(Gate::Default()->name())};
  EXPECT_EQ(names.size(), 5u);
  EXPECT_EQ(names.count(""), 0u);
}

}  // namespace
}  // namespace stormguard
