#include "stormguard/core/status.h"

#include <gtest/gtest.h>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(StatusTest, DefaultIsOkAndEmpty) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_TRUE(s.message().empty());
  EXPECT_TRUE(s.source().empty());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s, Status::Ok());
}

TEST(StatusTest, FactoriesSetTheirCanonicalCode) {
  EXPECT_EQ(Status::Cancelled("x").code(), StatusCode::kCancelled);
  EXPECT_EQ(Status::Unknown("x").code(), StatusCode::kUnknown);
  EXPECT_EQ(Status::InvalidArgument("x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Status::DeadlineExceeded("x").code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Status::NotFound("x").code(), StatusCode::kNotFound);
  EXPECT_EQ(Status::ResourceExhausted("x").code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(Status::FailedPrecondition("x").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(Status::Aborted("x").code(), StatusCode::kAborted);
  EXPECT_EQ(Status::Internal("x").code(), StatusCode::kInternal);
  EXPECT_EQ(Status::Unavailable("x").code(), StatusCode::kUnavailable);
  EXPECT_FALSE(Status::Unavailable("x").ok());
}

TEST(StatusTest, CodeNamesAreGrpcSpellingsAndNumbersMatchGrpc) {
  EXPECT_EQ(StatusCodeName(StatusCode::kOk), "OK");
  EXPECT_EQ(StatusCodeName(StatusCode::kDeadlineExceeded), "DEADLINE_EXCEEDED");
  EXPECT_EQ(StatusCodeName(StatusCode::kResourceExhausted), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(StatusCodeName(StatusCode::kUnavailable), "UNAVAILABLE");
  EXPECT_EQ(StatusCodeName(StatusCode::kUnauthenticated), "UNAUTHENTICATED");
  EXPECT_EQ(StatusCodeName(static_cast<StatusCode>(99)), "UNKNOWN_CODE");
  EXPECT_EQ(static_cast<int>(StatusCode::kUnavailable), 14);
  EXPECT_EQ(static_cast<int>(StatusCode::kUnauthenticated), 16);
}

TEST(StatusTest, ToStringShowsCodeMessageAndSource) {
  EXPECT_EQ(Status::Unavailable("inventory: 503").ToString(), "UNAVAILABLE: inventory: 503");
  EXPECT_EQ(Status(StatusCode::kInternal, "").ToString(), "INTERNAL");
  Status rejected = Status::Unavailable("open").WithSource("circuit_breaker");
  EXPECT_EQ(rejected.source(), "circuit_breaker");
  EXPECT_EQ(rejected.ToString(), "UNAVAILABLE: open [circuit_breaker]");
}

TEST(StatusTest, EqualityComparesCodeAndMessage) {
  EXPECT_EQ(Status::Unavailable("a"), Status::Unavailable("a"));
  EXPECT_NE(Status::Unavailable("a"), Status::Unavailable("b"));
  EXPECT_NE(Status::Unavailable("a"), Status::Internal("a"));
}

TEST(StatusTest, CarriesRetryHints) {
  Status s = Status::Unavailable("busy").WithHints({.pushback = 250ms, .outcome = OutcomeClass::kOverloaded});
  EXPECT_FALSE(s.hints().do_not_retry);
  EXPECT_EQ(s.hints().pushback, 250ms);
  EXPECT_FALSE(s.hints().pushback_stop);
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kOverloaded);
  s.mutable_hints().do_not_retry = true;
  EXPECT_TRUE(s.hints().do_not_retry);
  EXPECT_FALSE(Status::Unavailable("x").hints().pushback.has_value());
}

TEST(OutcomeTest, ClassNamesAreStable) {
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kSuccess), "success");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kTransient), "transient");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kOverloaded), "overloaded");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kPermanent), "permanent");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kAmbiguous), "ambiguous");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kDoNotRetry), "do_not_retry");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kCancelled), "cancelled");
  EXPECT_EQ(OutcomeClassName(OutcomeClass::kDeadlineExceeded), "deadline_exceeded");
}

TEST(OutcomeTest, SetAddsRemovesAndTestsMembership) {
  constexpr OutcomeSet s{OutcomeClass::kTransient, OutcomeClass::kAmbiguous};
  static_assert(s.contains(OutcomeClass::kTransient));
  EXPECT_FALSE(s.contains(OutcomeClass::kOverloaded));
  EXPECT_TRUE(s.With(OutcomeClass::kOverloaded).contains(OutcomeClass::kOverloaded));
  EXPECT_FALSE(s.Without(OutcomeClass::kTransient).contains(OutcomeClass::kTransient));
  EXPECT_TRUE(OutcomeSet().empty());
  EXPECT_EQ(OutcomeSet{OutcomeClass::kTransient}.With(OutcomeClass::kAmbiguous), s);
  for (int i = 0; i < kOutcomeClassCount; ++i) {
    EXPECT_TRUE(OutcomeSet::All().contains(static_cast<OutcomeClass>(i)));
  }
}

TEST(OutcomeTest, DefaultRetryableIsTransientOverloadedAmbiguous) {
  EXPECT_EQ(kDefaultRetryable,
            (OutcomeSet{OutcomeClass::kTransient, OutcomeClass::kOverloaded, OutcomeClass::kAmbiguous}));
  EXPECT_FALSE(kDefaultRetryable.contains(OutcomeClass::kPermanent));
  EXPECT_FALSE(kDefaultRetryable.contains(OutcomeClass::kDoNotRetry));
}

TEST(ValidationTest, CollectsEveryErrorWithItsFieldPath) {
  Validator v;
  v.Check(true, "fine", "never shown");
  v.Check(false, "max_attempts", "must be at least 1");
  v.Nest("backoff", {"cap: must be positive", "base: must not be negative"});
  EXPECT_EQ(v.errors(), (std::vector<std::string>{"max_attempts: must be at least 1", "backoff.cap: must be positive",
                                                  "backoff.base: must not be negative"}));
  const Status s = ValidationStatus("retry options", v.errors());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "invalid retry options: max_attempts: must be at least 1; backoff.cap: must be "
            "positive; backoff.base: must not be negative");
  EXPECT_TRUE(ValidationStatus("x", {}).ok());
}

// A status moves whole: code, source, hints and a message of any length
// (inline or on the heap); the moved-from one keeps no message.
TEST(StatusTest, MovesCarryEveryFieldAndLeaveNoMessageBehind) {
  for (const std::string& message : {std::string(), std::string("short"), std::string(200, 'm')}) {
    Status from = Status::Unavailable(message).WithSource("retry_budget").WithHints({.pushback = 7ms});
    Status to(std::move(from));
    EXPECT_EQ(to.code(), StatusCode::kUnavailable);
    EXPECT_EQ(to.message(), message);
    EXPECT_EQ(to.source(), "retry_budget");
    EXPECT_EQ(to.hints().pushback, 7ms);
    EXPECT_TRUE(from.message().empty());  // NOLINT(bugprone-use-after-move): the moved-from state is the contract

    Status assigned = Status::Internal("an older message");
    assigned = std::move(to);
    EXPECT_EQ(assigned.code(), StatusCode::kUnavailable);
    EXPECT_EQ(assigned.message(), message);  // an empty message replaces the older one too
    EXPECT_EQ(assigned.source(), "retry_budget");
    EXPECT_EQ(assigned.hints().pushback, 7ms);
    EXPECT_TRUE(to.message().empty());  // NOLINT(bugprone-use-after-move)
  }
}

TEST(StatusTest, SelfMoveAssignmentKeepsTheStatus) {
  Status s = Status::Aborted(std::string(100, 'x'));
  Status& alias = s;
  s = std::move(alias);
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_EQ(s.message(), std::string(100, 'x'));
}

}  // namespace
}  // namespace stormguard
