#include "stormguard/core/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace stormguard {
namespace {

TEST(ResultTest, HoldsAValue) {
  Result<int> r = 42;
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 42);
  EXPECT_EQ(r.value(), 42);
  EXPECT_TRUE(r.status().ok());
  EXPECT_EQ(r.value_or(7), 42);
}

TEST(ResultTest, HoldsAnErrorStatus) {
  Result<int> r = Status::Unavailable("down");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::Unavailable("down"));
  EXPECT_EQ(r.value_or(7), 7);
}

TEST(ResultTest, MutableStatusAnnotatesAFailureInPlace) {
  Result<int> r = Status::Unavailable("down");
  r.mutable_status().mutable_hints().do_not_retry = true;
  EXPECT_TRUE(r.status().hints().do_not_retry);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST(ResultTest, ArrowAndMutationReachTheValue) {
  Result<std::string> r = std::string("abc");
  EXPECT_EQ(r->size(), 3u);
  r->push_back('d');
  *r += "e";
  EXPECT_EQ(r.value(), "abcde");
}

TEST(ResultTest, MovesOutMoveOnlyValuesAndStatuses) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 5);

  Result<std::unique_ptr<int>> e = Status::Internal("boom");
  Status s = std::move(e).status();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
}

TEST(ResultTest, BuildingFromOkStatusIsAnInternalErrorInEveryBuild) {
  Result<int> r = Status::Ok();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status(), Status::Internal("Result built from an OK status"));
  EXPECT_DEATH((void)r.value(), "INTERNAL: Result built from an OK status");
}

// Not Debug-only: reading an error's value aborts in every build type, and
// says which status it was.
TEST(ResultDeathTest, ReadingTheValueOfAnErrorAbortsWithItsStatus) {
  Result<std::string> r = Status::Unavailable("inventory down");
  const Result<std::string>& cr = r;
  const char* const kMessage = "of a Result holding UNAVAILABLE: inventory down";
  EXPECT_DEATH((void)r.value(), kMessage);
  EXPECT_DEATH((void)cr.value(), kMessage);
  EXPECT_DEATH((void)std::move(r).value(), kMessage);
  EXPECT_DEATH((void)*r, kMessage);
  EXPECT_DEATH((void)*cr, kMessage);
  EXPECT_DEATH((void)r->size(), kMessage);
  EXPECT_DEATH((void)cr->size(), kMessage);
}

TEST(ResultTest, StatusOfTreatsStatusAndResultAlike) {
  const Status s = Status::Aborted("conflict");
  const Result<int> r = Status::Aborted("conflict");
  const Result<int> ok = 1;
  EXPECT_EQ(StatusOf(s), StatusOf(r));
  EXPECT_TRUE(StatusOf(ok).ok());
  static_assert(IsResult<Result<int>>::value);
  static_assert(!IsResult<int>::value);
  static_assert(!IsResult<Status>::value);
}

}  // namespace
}  // namespace stormguard
