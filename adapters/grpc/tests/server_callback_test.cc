// ServerGuard::ServeCallback on real callback-API gRPC servers on loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "guard_helpers.h"
#include "keyed_calls.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::CallbackEchoServer;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::Guard;
using testkit::Pushback;

// gRPC's own retries: 3 attempts on UNAVAILABLE, short backoff.
constexpr const char* kNativeRetries = R"({"methodConfig": [{
  "name": [{"service": "stormguard.test.Echo"}],
  "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.01s", "maxBackoff": "0.01s",
                  "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]})";

// A handler that keeps its answer for the test thread to give.
struct HeldCall {
  std::mutex mu;
  std::optional<ServerAnswer> answer;
  std::stop_token stop;
  std::latch inside{1};
  std::atomic<int> handled{0};

  CallbackHandler Handler() {
    return [this](CallContext& ctx, ServerAnswer a) {
      ++handled;
      {
        std::lock_guard lock(mu);
        answer.emplace(std::move(a));
        stop = ctx.stop;
      }
      inside.count_down();
    };
  }
  // Bounded: false when the stop did not fire within 5 s.
  bool WaitForStop() {
    inside.wait();
    for (int i = 0; i < 500; ++i) {
      if (std::lock_guard lock(mu); stop.stop_requested()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  void Answer(const grpc::Status& s) {
    std::lock_guard lock(mu);
    (*answer)(s);
  }
};

TEST(GrpcCallbackGuard, DeadlineIsClampedAndKeepsTheReserve) {
  auto guard = Guard({.limits = {.default_budget = 1s, .max_budget = 3s}, .reserve = {.fraction = 0.1}});
  std::atomic<std::int64_t> seen{0};
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply& out) {
    return guard->ServeCallback(sc, [&](CallContext& ctx, ServerAnswer answer) {
      seen = std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline.Remaining(Clock::Real().Now())).count();
      out.set_remaining_ms(seen);
      answer(grpc::Status::OK);
    });
  });
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  ASSERT_TRUE(testkit::CallWithin(*stub, std::chrono::hours(1000), &reply).ok());
  EXPECT_LE(seen.load(), 2700);  // 3 s clamped, less the 10% reserve
  EXPECT_GT(seen.load(), 2000);
  EXPECT_EQ(reply.remaining_ms(), seen.load());
  EXPECT_EQ(guard->stats().clamped, 1u);

  // Past the year 2262, where gRPC's system_clock deadline overflows.
  for (const char* timeout : {"2067000H", "99999999H"}) {
    const testkit::RawAnswer a =
        testkit::RawUnaryCall(server.address(), testkit::kSayPath, "", {{"grpc-timeout", timeout}});
    EXPECT_EQ(a.grpc_status, "0") << timeout << ": " << a.grpc_message;
    ASSERT_TRUE(reply.ParseFromString(a.reply)) << timeout;
    EXPECT_LE(reply.remaining_ms(), 2700) << timeout;
    EXPECT_GT(reply.remaining_ms(), 2000) << timeout;
  }
  EXPECT_EQ(guard->stats().clamped, 3u);
  EXPECT_EQ(guard->stats().expired_refused, 0u);
}

TEST(GrpcCallbackGuard, AnUnreadableIdempotencyKeyIsRefusedBeforeTheHandlerWithoutAStore) {
  auto guard = Guard();
  std::atomic<int> handled{0};
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->ServeCallback(sc, [&](CallContext&, ServerAnswer answer) {
      ++handled;
      answer(grpc::Status::OK);
    });
  });
  testkit::ExpectHostileKeysRefused(server.address());
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(guard->stats().invalid_keys, 12u);  // 6 keys, twice
}

TEST(GrpcCallbackGuard, ASpentCallIsRefusedBeforeItsHandler) {
  auto guard = Guard({.reserve = {.overhead = 500ms}});
  std::atomic<int> handled{0};
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->ServeCallback(sc, [&](CallContext&, ServerAnswer answer) {
      ++handled;
      answer(grpc::Status::OK);
    });
  });
  auto stub = testkit::Stub(server.address());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 100ms);
  EchoReply reply;
  EXPECT_EQ(stub->Say(&context, EchoRequest(), &reply).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(guard->stats().expired_refused, 1u);
  EXPECT_EQ(Pushback(context), "-1");
}

TEST(GrpcCallbackGuard, ADownstreamGiveUpStopsAPlainClientsNativeRetries) {
  auto guard = Guard();
  std::atomic<int> arrivals{0};
  std::atomic<bool> gave_up{true};
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    ++arrivals;
    return guard->ServeCallback(sc, [&](CallContext& ctx, ServerAnswer answer) {
      ctx.downstream_gave_up = gave_up.load();
      answer(grpc::Status(grpc::StatusCode::UNAVAILABLE, "downstream down"));
    });
  });
  auto stub = testkit::Stub(server.address(), kNativeRetries);
  EchoReply reply;
  EXPECT_EQ(testkit::CallWithin(*stub, 5000ms, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(arrivals.load(), 1);
  EXPECT_EQ(guard->stats().marked_no_retry, 1u);

  gave_up = false;  // the same failure without a give-up is retried by gRPC
  arrivals = 0;
  EXPECT_EQ(testkit::CallWithin(*stub, 5000ms, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(arrivals.load(), 3);
}

TEST(GrpcCallbackGuard, HandlersStopFiresWhenTheClientCancels) {
  auto guard = Guard();
  HeldCall held;
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->ServeCallback(sc, held.Handler());
  });
  auto stub = testkit::Stub(server.address());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 10s);
  std::thread canceller([&] {
    held.inside.wait();
    context.TryCancel();
  });
  EchoReply reply;
  EXPECT_EQ(stub->Say(&context, EchoRequest(), &reply).error_code(), grpc::StatusCode::CANCELLED);
  canceller.join();
  EXPECT_TRUE(held.WaitForStop());  // long before the 10 s deadline
  EXPECT_EQ(guard->stats().client_cancelled, 1u);
  held.Answer(grpc::Status(grpc::StatusCode::CANCELLED, "stopped"));
}

TEST(GrpcCallbackGuard, HandlersStopFiresAtTheServersDeadline) {
  // The caller grants 10 s; the server allows 300 ms.
  auto guard = Guard({.limits = {.default_budget = 300ms, .max_budget = 300ms}});
  HeldCall held;
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->ServeCallback(sc, held.Handler());
  });
  auto stub = testkit::Stub(server.address());
  grpc::Status status;
  std::thread caller([&] {
    EchoReply reply;
    status = testkit::CallWithin(*stub, 10s, &reply);
  });
  EXPECT_TRUE(held.WaitForStop());
  EXPECT_EQ(guard->stats().client_cancelled, 0u);
  held.Answer(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "out of time"));
  caller.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST(GrpcCallbackGuard, AShedCallAnswersDoNotRetryWhileThePermitIsHeldUntilTheAnswer) {
  auto shed = PipelineBuilder().AddBulkhead(BulkheadOptions{.max_concurrent = 1}).Build().value();
  auto guard = Guard({.pipeline = shed});
  HeldCall held;
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->ServeCallback(sc, held.Handler());
  });
  auto stub = testkit::Stub(server.address(), kNativeRetries);
  grpc::Status first;
  std::thread holder([&] {
    EchoReply reply;
    first = testkit::CallWithin(*stub, 5s, &reply);
  });
  held.inside.wait();  // the first call's handler returned, its answer still open
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  EchoReply reply;
  const grpc::Status second = stub->Say(&context, EchoRequest(), &reply);
  held.Answer(grpc::Status::OK);
  holder.join();
  EXPECT_TRUE(first.ok()) << first.error_message();
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(held.handled.load(), 1);  // the native retries stopped too
  EXPECT_EQ(guard->stats().shed, 1u);
  EXPECT_EQ(Pushback(context), "-1");
}

TEST(GrpcCallbackGuard, AThrowingOrSilentHandlerStillAnswers) {
  auto guard = Guard();
  CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest& in, EchoReply&) {
    return guard->ServeCallback(sc, [throws = in.text() == "throw"](CallContext&, ServerAnswer) {
      if (throws) throw std::runtime_error("boom");
    });
  });
  auto stub = testkit::Stub(server.address());
  EchoRequest request;
  request.set_text("throw");
  EchoReply reply;
  grpc::ClientContext a;
  EXPECT_EQ(stub->Say(&a, request, &reply).error_code(), grpc::StatusCode::UNKNOWN);
  grpc::ClientContext b;
  EXPECT_EQ(stub->Say(&b, EchoRequest(), &reply).error_code(), grpc::StatusCode::INTERNAL);
}

}  // namespace
}  // namespace stormguard::rpc
