// Status mapping, pushback trailers and chain metadata, without a server.
#include <gtest/gtest.h>

#include <grpcpp/support/time.h>

#include <chrono>
#include <limits>
#include <string>
#include <utility>

#include "stormguard/grpc/chain_metadata.h"
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "stormguard/grpc/status_map.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using Meta = std::multimap<grpc::string_ref, grpc::string_ref>;

TEST(GrpcStatusMap, CodesMapOneToOneAndForeignCodesAreUnknown) {
  for (int n = 0; n <= 16; ++n) {
    const auto g = static_cast<grpc::StatusCode>(n);
    EXPECT_EQ(static_cast<int>(FromGrpcCode(g)), n);
    EXPECT_EQ(ToGrpcCode(FromGrpcCode(g)), g);
  }
  EXPECT_EQ(FromGrpcCode(static_cast<grpc::StatusCode>(99)), StatusCode::kUnknown);
  EXPECT_EQ(FromGrpcCode(static_cast<grpc::StatusCode>(-1)), StatusCode::kUnknown);
}

TEST(GrpcStatusMap, OutcomeClassesFollowGrpcsRetryableCodes) {
  using C = grpc::StatusCode;
  EXPECT_EQ(ClassifyGrpcStatus(C::OK), OutcomeClass::kSuccess);
  EXPECT_EQ(ClassifyGrpcStatus(C::UNAVAILABLE), OutcomeClass::kTransient);
  EXPECT_EQ(ClassifyGrpcStatus(C::RESOURCE_EXHAUSTED), OutcomeClass::kOverloaded);
  EXPECT_EQ(ClassifyGrpcStatus(C::DEADLINE_EXCEEDED), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassifyGrpcStatus(C::UNKNOWN), OutcomeClass::kAmbiguous);
  EXPECT_EQ(ClassifyGrpcStatus(C::CANCELLED), OutcomeClass::kCancelled);
  EXPECT_EQ(ClassifyGrpcStatus(C::ABORTED), OutcomeClass::kPermanent);  // retried higher up, not here
  EXPECT_EQ(ClassifyGrpcStatus(C::INTERNAL), OutcomeClass::kPermanent);
  EXPECT_EQ(ClassifyGrpcStatus(C::INVALID_ARGUMENT), OutcomeClass::kPermanent);
}

TEST(GrpcStatusMap, FromGrpcKeepsCodeMessageAndClass) {
  const Status s = FromGrpc({grpc::StatusCode::UNAVAILABLE, "down"}, {}, 30s);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "down");
  EXPECT_EQ(s.hints().outcome, OutcomeClass::kTransient);
  EXPECT_FALSE(s.hints().pushback_stop);
  EXPECT_FALSE(s.hints().pushback);
  EXPECT_TRUE(FromGrpc(grpc::Status::OK, {}, 30s).ok());
  const grpc::Status g = ToGrpc(Status::ResourceExhausted("full"));
  EXPECT_EQ(g.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(g.error_message(), "full");
  EXPECT_TRUE(ToGrpc(Status::Ok()).ok());
}

RetryHints HintsOf(std::initializer_list<const char*> pushbacks, Duration max = 30s) {
  Meta trailers;
  for (const char* v : pushbacks) trailers.emplace("grpc-retry-pushback-ms", v);
  return FromGrpc({grpc::StatusCode::UNAVAILABLE, ""}, trailers, max).hints();
}

TEST(GrpcStatusMap, NegativeOrUnparseablePushbackMeansDoNotRetry) {
  for (const char* v : {"-1", "-9223372036854775808", "-99999999999999999999", "abc", "", " 5", "5ms", "1.5",
                        "99999999999999999999999"}) {
    const RetryHints h = HintsOf({v});
    EXPECT_TRUE(h.pushback_stop) << '"' << v << '"';
    EXPECT_FALSE(h.pushback) << '"' << v << '"';
  }
  EXPECT_TRUE(HintsOf({"100", "-1"}).pushback_stop);  // any stop wins
}

TEST(GrpcStatusMap, PushbackIsAPauseBoundedByTheCallersMaximum) {
  EXPECT_EQ(HintsOf({"0"}).pushback, Duration::zero());
  EXPECT_EQ(HintsOf({"300"}).pushback, Duration(300ms));
  EXPECT_EQ(HintsOf({"2147483647"}).pushback, Duration(30s));
  EXPECT_EQ(HintsOf({"999999999999999999"}).pushback, Duration(30s));
  EXPECT_EQ(HintsOf({"999999999999999999"}, kInfiniteDuration).pushback, kMaxWireDuration);
  EXPECT_FALSE(HintsOf({"300"}).pushback_stop);
}

TEST(GrpcStatusMap, HttpRetryHeadersInTrailersAreNotGrpc) {
  Meta trailers{{"x-no-retry", "1"}, {"retry-after", "5"}};
  const RetryHints h = FromGrpc({grpc::StatusCode::UNAVAILABLE, ""}, trailers, 30s).hints();
  EXPECT_FALSE(h.do_not_retry);
  EXPECT_FALSE(h.pushback);
}

TEST(GrpcChainMetadata, RetryFlagFromOurAttemptGrpcsPreviousAttemptsOrEnvoysCount) {
  const auto retry = [](const char* key, const char* value) { return ReadIncomingChain(Meta{{key, value}}).is_retry; };
  EXPECT_TRUE(retry("x-stormguard-attempt", "2"));
  EXPECT_TRUE(retry("x-stormguard-attempt", "2147483647"));
  EXPECT_FALSE(retry("x-stormguard-attempt", "1"));
  EXPECT_FALSE(retry("x-stormguard-attempt", "0"));
  EXPECT_FALSE(retry("x-stormguard-attempt", "-3"));
  EXPECT_FALSE(retry("x-stormguard-attempt", "99999999999999999999999"));
  EXPECT_TRUE(retry("grpc-previous-rpc-attempts", "1"));
  EXPECT_FALSE(retry("grpc-previous-rpc-attempts", "0"));
  EXPECT_FALSE(retry("grpc-previous-rpc-attempts", "x"));
  EXPECT_TRUE(retry("x-envoy-attempt-count", "2"));  // an Envoy sidecar's retry
  EXPECT_FALSE(retry("x-envoy-attempt-count", "1"));
  EXPECT_FALSE(retry("x-envoy-attempt-count", "0"));
  EXPECT_FALSE(retry("x-envoy-attempt-count", "+2"));
  EXPECT_FALSE(ReadIncomingChain(Meta{}).is_retry);
}

TEST(GrpcChainMetadata, OnlyOneValidIdempotencyKeyIsKept) {
  const IncomingChain valid = ReadIncomingChain(Meta{{"idempotency-key", "order-7"}});
  EXPECT_EQ(valid.idempotency_key, "order-7");
  EXPECT_FALSE(valid.unreadable_key);
  EXPECT_FALSE(ReadIncomingChain(Meta{}).unreadable_key);
}

TEST(GrpcChainMetadata, AKeySentButUnreadableIsToldApartFromNone) {
  const std::string long_key(kMaxIdempotencyKeyLength + 1, 'k');
  const std::pair<Meta, std::size_t> unreadable[] = {
      {Meta{{"idempotency-key", ""}}, kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key",
             "ab\x01"
             "cd"}},
       kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key", "caf\xc3\xa9"}}, kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key", long_key}}, kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key", "abcd"}}, 3},
      {Meta{{"idempotency-key", "a"}, {"idempotency-key", "b"}}, kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key", "a"}, {"idempotency-key", "a"}}, kMaxIdempotencyKeyLength},
      // A bad first key is not redeemed by a good second one, nor the reverse.
      {Meta{{"idempotency-key", "a\x01"}, {"idempotency-key", "b"}}, kMaxIdempotencyKeyLength},
      {Meta{{"idempotency-key", "b"}, {"idempotency-key", "a\x01"}}, kMaxIdempotencyKeyLength},
  };
  for (const auto& [meta, max_length] : unreadable) {
    const IncomingChain in = ReadIncomingChain(meta, max_length);
    EXPECT_TRUE(in.unreadable_key) << meta.begin()->second;
    EXPECT_EQ(in.idempotency_key, "") << meta.begin()->second;
  }
}

gpr_timespec At(std::int64_t seconds, std::int32_t nanos = 0, gpr_clock_type clock = GPR_CLOCK_REALTIME) {
  return {.tv_sec = seconds, .tv_nsec = nanos, .clock_type = clock};
}

TEST(GrpcChainMetadata, RemainingUntilAGrpcDeadline) {
  const gpr_timespec now = At(1'790'000'000, 500'000'000);  // in 2026
  EXPECT_EQ(RemainingUntil(gpr_inf_future(GPR_CLOCK_REALTIME), now), kInfiniteDuration);
  EXPECT_EQ(RemainingUntil(gpr_inf_future(GPR_CLOCK_MONOTONIC), At(5, 0, GPR_CLOCK_MONOTONIC)), kInfiniteDuration);
  EXPECT_EQ(RemainingUntil(now, now), Duration::zero());
  EXPECT_EQ(RemainingUntil(At(1'789'999'999), now), Duration::zero());
  EXPECT_EQ(RemainingUntil(At(1'790'000'000, 499'999'999), now), Duration::zero());  // same second, before
  EXPECT_EQ(RemainingUntil(At(1'790'000'000, 750'000'000), now), Duration(250ms));
  EXPECT_EQ(RemainingUntil(At(1'790'000'001, 0), now), Duration(500ms));
  EXPECT_EQ(RemainingUntil(gpr_inf_past(GPR_CLOCK_REALTIME), now), Duration::zero());
}

TEST(GrpcChainMetadata, RemainingUntilADeadlineCenturiesAwayIsTheWireMaximum) {
  const gpr_timespec now = At(1'790'000'000);
  constexpr std::int64_t kHour = 3600;
  // grpc-timeout 2067000H lands past 2262, where system_clock nanoseconds end.
  EXPECT_EQ(RemainingUntil(At(now.tv_sec + 2'067'000 * kHour), now), kMaxWireDuration);
  EXPECT_EQ(RemainingUntil(At(now.tv_sec + 99'999'999 * kHour), now), kMaxWireDuration);
  gpr_timespec system_max;  // system_clock's own end, a finite deadline to gRPC
  grpc::Timepoint2Timespec(std::chrono::system_clock::time_point::max() - std::chrono::hours(1), &system_max);
  ASSERT_NE(system_max.tv_sec, gpr_inf_future(GPR_CLOCK_REALTIME).tv_sec);
  EXPECT_EQ(RemainingUntil(system_max, now), kMaxWireDuration);
  const std::int64_t max_seconds = kMaxWireDuration / 1s;
  EXPECT_EQ(RemainingUntil(At(now.tv_sec + max_seconds - 1, 999'999'999), now), kMaxWireDuration - 1ns);
  EXPECT_EQ(RemainingUntil(At(now.tv_sec + max_seconds, 1), now), kMaxWireDuration);
  // The seconds' difference itself overflows int64, either way.
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(RemainingUntil(At(kMax - 1), At(kMin)), kMaxWireDuration);
  EXPECT_EQ(RemainingUntil(At(kMin), At(kMax - 1)), Duration::zero());
  EXPECT_EQ(RemainingUntil(At(kMax - 1), At(0)), kMaxWireDuration);
  // Nanoseconds out of their range stay inside [0, kMaxWireDuration].
  const std::int32_t kNanoMax = std::numeric_limits<std::int32_t>::max();
  const std::int32_t kNanoMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(RemainingUntil(At(10, kNanoMin), At(10, kNanoMax)), Duration::zero());
  EXPECT_EQ(RemainingUntil(At(10, kNanoMax), At(10, kNanoMin)), Duration(std::int64_t{kNanoMax} - kNanoMin));
}

TEST(GrpcChainMetadata, AttemptDeadlineBecomesTheContextsDeadline) {
  ManualClock clock;
  const TimePoint now = clock.Now();
  grpc::ClientContext finite;
  PrepareAttempt({.deadline = Deadline::After(now, 500ms)}, now, finite);
  const gpr_timespec deadline = finite.raw_deadline();
  const Duration left = RemainingUntil(deadline, gpr_now(deadline.clock_type));
  EXPECT_LE(left, Duration(500ms));
  EXPECT_GT(left, Duration(400ms));

  grpc::ClientContext infinite;
  PrepareAttempt({}, now, infinite);
  EXPECT_EQ(infinite.deadline(), std::chrono::system_clock::time_point::max());

  // Centuries away: saturates instead of overflowing into the past.
  grpc::ClientContext far;
  PrepareAttempt({.deadline = Deadline::After(now, kInfiniteDuration - 1ns)}, now, far);
  EXPECT_GT(far.deadline(), std::chrono::system_clock::now() + std::chrono::hours(24 * 365 * 100));
}

TEST(GrpcOptions, InvalidOptionsNameTheField) {
  auto client = GrpcClient::Create({});
  ASSERT_FALSE(client.ok());
  EXPECT_NE(client.status().message().find("pipeline"), std::string::npos);

  auto pipeline = PipelineBuilder().AddRetry({}).Build().value();
  auto guard = ServerGuard::Create({.pipeline = pipeline});
  ASSERT_FALSE(guard.ok());
  EXPECT_NE(guard.status().message().find("pipeline.stages[0] (retry)"), std::string::npos);
  auto poll = ServerGuard::Create({.cancel_poll_interval = Duration::zero()});
  ASSERT_FALSE(poll.ok());
  EXPECT_NE(poll.status().message().find("cancel_poll_interval"), std::string::npos);
  auto reserve = ServerGuard::Create({.reserve = {.fraction = 1.0}});
  ASSERT_FALSE(reserve.ok());
  EXPECT_NE(reserve.status().message().find("reserve.fraction"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::rpc
