#include "stormguard/core/classifier.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <future>
#include <new>
#include <stdexcept>
#include <string>

namespace stormguard {
namespace {

OutcomeClass ClassOfHttp(int http_status) { return DefaultClassifier().Classify(StatusFromHttp(http_status)); }

OutcomeClass ClassOfException(std::exception_ptr e) {
  return DefaultClassifier().Classify(StatusFromException(std::move(e)));
}

// "400 / 401 / 403 / 404 / 409: do not retry" (docs/retry-amplification.md).
TEST(ClassifierTest, HttpClientErrorsFromSeedTableArePermanent) {
  for (int s : {400, 401, 403, 404, 409}) {
    EXPECT_EQ(ClassifyHttpStatus(s), OutcomeClass::kPermanent) << s;
    EXPECT_EQ(ClassOfHttp(s), OutcomeClass::kPermanent) << s;
  }
}

TEST(ClassifierTest, Http429And503AreOverload) {
  for (int s : {429, 503}) {
    EXPECT_EQ(ClassifyHttpStatus(s), OutcomeClass::kOverloaded) << s;
    EXPECT_EQ(ClassOfHttp(s), OutcomeClass::kOverloaded) << s;
  }
}

TEST(ClassifierTest, Http502And504AreTransientNotAmbiguous) {
  for (int s : {502, 504}) {
    EXPECT_EQ(ClassifyHttpStatus(s), OutcomeClass::kTransient) << s;
    // 504 carries DEADLINE_EXCEEDED, which alone would be ambiguous; the
    // explicit hint keeps it transient.
    EXPECT_EQ(ClassOfHttp(s), OutcomeClass::kTransient) << s;
  }
  EXPECT_EQ(StatusFromHttp(504).code(), StatusCode::kDeadlineExceeded);
}

TEST(ClassifierTest, HttpSuccessAndOtherServerErrors) {
  EXPECT_EQ(ClassifyHttpStatus(200), OutcomeClass::kSuccess);
  EXPECT_EQ(ClassifyHttpStatus(204), OutcomeClass::kSuccess);
  EXPECT_EQ(ClassifyHttpStatus(304), OutcomeClass::kSuccess);
  EXPECT_EQ(ClassifyHttpStatus(500), OutcomeClass::kPermanent);  // a bug repeats
  EXPECT_EQ(ClassifyHttpStatus(501), OutcomeClass::kPermanent);
  EXPECT_EQ(ClassifyHttpStatus(408), OutcomeClass::kTransient);
  EXPECT_EQ(ClassifyHttpStatus(0), OutcomeClass::kPermanent);
  EXPECT_EQ(ClassifyHttpStatus(999), OutcomeClass::kPermanent);
}

TEST(ClassifierTest, HttpStatusMapsToCanonicalGrpcCode) {
  EXPECT_EQ(GrpcCodeFromHttp(200), StatusCode::kOk);
  EXPECT_EQ(GrpcCodeFromHttp(400), StatusCode::kInvalidArgument);
  EXPECT_EQ(GrpcCodeFromHttp(401), StatusCode::kUnauthenticated);
  EXPECT_EQ(GrpcCodeFromHttp(403), StatusCode::kPermissionDenied);
  EXPECT_EQ(GrpcCodeFromHttp(404), StatusCode::kNotFound);
  EXPECT_EQ(GrpcCodeFromHttp(409), StatusCode::kAborted);
  EXPECT_EQ(GrpcCodeFromHttp(429), StatusCode::kResourceExhausted);
  EXPECT_EQ(GrpcCodeFromHttp(502), StatusCode::kUnavailable);
  EXPECT_EQ(GrpcCodeFromHttp(503), StatusCode::kUnavailable);
  EXPECT_EQ(GrpcCodeFromHttp(504), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(GrpcCodeFromHttp(418), StatusCode::kFailedPrecondition);
  EXPECT_EQ(GrpcCodeFromHttp(599), StatusCode::kInternal);
  EXPECT_EQ(StatusFromHttp(503).message(), "HTTP 503");
}

TEST(ClassifierTest, TimeoutsAreAmbiguous) {
  EXPECT_EQ(DefaultClassifier().Classify(Status::DeadlineExceeded("read timeout")), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassifyErrorCode(std::make_error_code(std::errc::timed_out)), OutcomeClass::kAmbiguous);
}

TEST(ClassifierTest, GrpcCodes) {
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kOk), OutcomeClass::kSuccess);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kCancelled), OutcomeClass::kCancelled);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kDeadlineExceeded), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kUnknown), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kResourceExhausted), OutcomeClass::kOverloaded);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kUnavailable), OutcomeClass::kTransient);
  EXPECT_EQ(ClassifyGrpcCode(StatusCode::kAborted), OutcomeClass::kTransient);
  for (StatusCode c :
       {StatusCode::kInvalidArgument, StatusCode::kNotFound, StatusCode::kAlreadyExists, StatusCode::kPermissionDenied,
        StatusCode::kFailedPrecondition, StatusCode::kOutOfRange, StatusCode::kUnimplemented, StatusCode::kInternal,
        StatusCode::kDataLoss, StatusCode::kUnauthenticated}) {
    EXPECT_EQ(ClassifyGrpcCode(c), OutcomeClass::kPermanent) << StatusCodeName(c);
  }
}

TEST(ClassifierTest, ErrcValues) {
  auto cls = [](std::errc e) { return ClassifyErrorCode(std::make_error_code(e)); };
  EXPECT_EQ(ClassifyErrorCode({}), OutcomeClass::kSuccess);
  EXPECT_EQ(cls(std::errc::connection_refused), OutcomeClass::kTransient);
  EXPECT_EQ(cls(std::errc::host_unreachable), OutcomeClass::kTransient);
  EXPECT_EQ(cls(std::errc::connection_reset), OutcomeClass::kTransient);
  EXPECT_EQ(cls(std::errc::broken_pipe), OutcomeClass::kTransient);
  EXPECT_EQ(cls(std::errc::timed_out), OutcomeClass::kAmbiguous);
  EXPECT_EQ(cls(std::errc::resource_unavailable_try_again), OutcomeClass::kOverloaded);
  EXPECT_EQ(cls(std::errc::too_many_files_open), OutcomeClass::kOverloaded);
  EXPECT_EQ(cls(std::errc::operation_canceled), OutcomeClass::kCancelled);
  EXPECT_EQ(cls(std::errc::permission_denied), OutcomeClass::kPermanent);
  EXPECT_EQ(cls(std::errc::invalid_argument), OutcomeClass::kPermanent);
}

TEST(ClassifierTest, SystemCategoryErrnoIsMappedThroughItsGenericCondition) {
  EXPECT_EQ(ClassifyErrorCode(std::error_code(ECONNREFUSED, std::system_category())), OutcomeClass::kTransient);
  EXPECT_EQ(ClassifyErrorCode(std::error_code(ETIMEDOUT, std::system_category())), OutcomeClass::kAmbiguous);
}

TEST(ClassifierTest, ErrorCodeOfForeignCategoryIsAmbiguous) {
  EXPECT_EQ(ClassifyErrorCode(std::make_error_code(std::future_errc::broken_promise)), OutcomeClass::kAmbiguous);
}

TEST(ClassifierTest, StatusFromErrorCodeCarriesClassAndMatchingCode) {
  const Status s = StatusFromErrorCode(std::make_error_code(std::errc::connection_refused));
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kTransient);
  EXPECT_EQ(StatusFromErrorCode(std::make_error_code(std::errc::timed_out)).code(), StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(StatusFromErrorCode({}).ok());
}

TEST(ClassifierTest, SystemErrorKeepsItsCodesClass) {
  const auto e = std::make_exception_ptr(std::system_error(std::make_error_code(std::errc::connection_reset), "recv"));
  const Status s = StatusFromException(e);
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kTransient);
  EXPECT_NE(s.message().find("recv"), std::string::npos);
  EXPECT_EQ(ClassOfException(e), OutcomeClass::kTransient);
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::system_error(std::make_error_code(std::errc::timed_out)))),
            OutcomeClass::kAmbiguous);
}

TEST(ClassifierTest, LogicErrorsArePermanent) {
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::logic_error("bug"))), OutcomeClass::kPermanent);
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::invalid_argument("bad"))), OutcomeClass::kPermanent);
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::out_of_range("idx"))), OutcomeClass::kPermanent);
  EXPECT_EQ(StatusFromException(std::make_exception_ptr(std::logic_error("bug"))).message(), "bug");
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::bad_alloc())), OutcomeClass::kPermanent);
}

TEST(ClassifierTest, UnknownExceptionsAreAmbiguous) {
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(std::runtime_error("?"))), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassOfException(std::make_exception_ptr(42)), OutcomeClass::kAmbiguous);
  EXPECT_EQ(StatusFromException(std::make_exception_ptr(42)).message(), "unknown exception");
  EXPECT_EQ(ClassOfException(nullptr), OutcomeClass::kAmbiguous);
}

TEST(ClassifierTest, OkIsSuccessWhateverTheHints) {
  Status ok;
  ok.mutable_hints().outcome = OutcomeClass::kPermanent;
  EXPECT_EQ(DefaultClassifier().Classify(ok), OutcomeClass::kSuccess);
}

TEST(ClassifierTest, ExplicitHintOverridesTheCode) {
  Status s = Status::Internal("known to be transient");
  s.mutable_hints().outcome = OutcomeClass::kTransient;
  EXPECT_EQ(DefaultClassifier().Classify(s), OutcomeClass::kTransient);
}

TEST(ClassifierTest, DoNotRetryHintMakesOutcomeDoNotRetry) {
  Status s = Status::Unavailable("downstream gave up");
  s.mutable_hints().do_not_retry = true;
  EXPECT_EQ(DefaultClassifier().Classify(s), OutcomeClass::kDoNotRetry);
}

// An HTTP adapter builds StatusFromHttp(503) and then reads `x-no-retry: 1`
// from the response: the downstream's "do not retry" must win over the
// class the adapter derived from the status code.
TEST(ClassifierTest, DoNotRetryHintWinsOverAdapterClass) {
  Status s = StatusFromHttp(503);
  s.mutable_hints().do_not_retry = true;
  EXPECT_EQ(DefaultClassifier().Classify(s), OutcomeClass::kDoNotRetry);
}

class NotFoundIsTransient final : public Classifier {
 public:
  OutcomeClass Classify(const Status& s) const noexcept override {
    if (s.code() == StatusCode::kNotFound) return OutcomeClass::kTransient;  // eventual consistency
    return Classifier::Classify(s);
  }
};

TEST(ClassifierTest, UserSubclassOverridesTheDefaultRules) {
  const NotFoundIsTransient custom;
  const Classifier& c = custom;
  EXPECT_EQ(c.Classify(Status::NotFound("not replicated yet")), OutcomeClass::kTransient);
  EXPECT_EQ(DefaultClassifier().Classify(Status::NotFound("x")), OutcomeClass::kPermanent);
  EXPECT_EQ(c.Classify(Status::ResourceExhausted("x")), OutcomeClass::kOverloaded);
}

}  // namespace
}  // namespace stormguard
