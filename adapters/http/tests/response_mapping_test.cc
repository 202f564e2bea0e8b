// How an answer becomes a Status (StatusOfResponse): what ResponseMapping
// takes from the request, and what each of its fields changes.
#include <gtest/gtest.h>

#include "stormguard/http/chain_headers.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

HttpResponse Answer(int status, HeaderList headers = {}) { return {.status = status, .headers = std::move(headers)}; }

TEST(ResponseMappingTest, ForTakesWhatMayRepeatFromTheRequest) {
  const ResponseMapping get = ResponseMapping::For({.method = "GET"}, true);
  EXPECT_TRUE(get.chain_protocol);
  EXPECT_FALSE(get.keyed);
  EXPECT_FALSE(get.once_only);
  EXPECT_EQ(get.retry_after_cap, kInfiniteDuration);  // the pipeline's retry clamps it
  EXPECT_FALSE(ResponseMapping::For({.method = "PUT"}, true).once_only);
  EXPECT_TRUE(ResponseMapping::For({.method = "POST"}, true).once_only);
  const ResponseMapping keyed = ResponseMapping::For({.method = "POST", .idempotency_key = "k"}, false);
  EXPECT_FALSE(keyed.chain_protocol);
  EXPECT_TRUE(keyed.keyed);
  EXPECT_FALSE(keyed.once_only);
}

TEST(ResponseMappingTest, OnlyAFailedAnswerIsAnError) {
  EXPECT_TRUE(StatusOfResponse(Answer(204), {.once_only = true}).ok());
  EXPECT_TRUE(StatusOfResponse(Answer(302), {}).ok());
  const Status s = StatusOfResponse(Answer(503), {});
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kOverloaded);
}

TEST(ResponseMappingTest, AnAnswerToARequestThatMayNotRunTwiceIsAmbiguous) {
  EXPECT_EQ(StatusOfResponse(Answer(503), {.once_only = true}).hints().outcome, OutcomeClass::kAmbiguous);
  EXPECT_EQ(StatusOfResponse(Answer(502), {.chain_protocol = false, .once_only = true}).hints().outcome,
            OutcomeClass::kAmbiguous);
  EXPECT_EQ(StatusOfResponse(Answer(400), {.once_only = true}).hints().outcome, OutcomeClass::kPermanent);
}

TEST(ResponseMappingTest, AKeyedConflictIsTransientUnderTheChainProtocol) {
  EXPECT_EQ(StatusOfResponse(Answer(409), {.keyed = true}).hints().outcome, OutcomeClass::kTransient);
  EXPECT_EQ(StatusOfResponse(Answer(409), {}).hints().outcome, OutcomeClass::kPermanent);
  EXPECT_EQ(StatusOfResponse(Answer(409), {.chain_protocol = false, .keyed = true}).hints().outcome,
            OutcomeClass::kPermanent);
}

TEST(ResponseMappingTest, HintsAreReadUnderTheChainProtocolOnlyAndPushbackIsCapped) {
  const HttpResponse pause = Answer(429, {{"retry-after", "30"}, {"x-no-retry", "1"}});
  const Status uncapped = StatusOfResponse(pause, {});
  EXPECT_EQ(uncapped.hints().pushback, std::optional<Duration>(30s));
  EXPECT_TRUE(uncapped.hints().do_not_retry);
  EXPECT_EQ(StatusOfResponse(pause, {.retry_after_cap = 1s}).hints().pushback, std::optional<Duration>(1s));
  const Status plain = StatusOfResponse(pause, {.chain_protocol = false});
  EXPECT_FALSE(plain.hints().pushback.has_value());
  EXPECT_FALSE(plain.hints().do_not_retry);
  EXPECT_EQ(plain.hints().outcome, OutcomeClass::kOverloaded);
}

}  // namespace
}  // namespace stormguard::http
