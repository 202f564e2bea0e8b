// ServerGuard on real gRPC servers on loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <thread>

#include "guard_helpers.h"
#include "keyed_calls.h"
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;
using testkit::Guard;
using testkit::RemainingMs;

// gRPC's own retries: 3 attempts on UNAVAILABLE, short backoff.
constexpr const char* kGrpcNativeRetries = R"({"methodConfig": [{
  "name": [{"service": "stormguard.test.Echo"}],
  "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.01s", "maxBackoff": "0.01s",
                  "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]})";

TEST(GrpcServerGuard, DeadlineShrinksByTheReserveAtEachOfThreeHops) {
  auto client = GrpcClient::Create({.pipeline = PipelineBuilder().Build().value()}).value();
  auto guard = Guard();  // 10% reserve per hop
  std::atomic<std::int64_t> seen_a{0}, seen_b{0}, seen_c{0};
  EchoServer c([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply& out) {
    return guard->Serve(sc, [&](CallContext& ctx) {
      seen_c = RemainingMs(ctx);
      out.set_remaining_ms(seen_c);
      return grpc::Status::OK;
    });
  });
  auto relay = [&](test::Echo::Stub& next, std::atomic<std::int64_t>& seen) {
    return [&](grpc::ServerContext& sc, const EchoRequest& in, EchoReply& out) {
      return guard->Serve(sc, [&](CallContext& ctx) {
        seen = RemainingMs(ctx);
        // No context passed: the call inherits the served call's.
        const GrpcResult r =
            client.Call<EchoReply>([&](grpc::ClientContext& cc, EchoReply* reply) { return next.Say(&cc, in, reply); },
                                   &out);
        return ToGrpc(r.status);
      });
    };
  };
  auto to_c = testkit::Stub(c.address());
  EchoServer b(relay(*to_c, seen_b));
  auto to_b = testkit::Stub(b.address());
  EchoServer a(relay(*to_b, seen_a));
  auto to_a = testkit::Stub(a.address());

  EchoReply reply;
  const grpc::Status s = testkit::CallWithin(*to_a, 2000ms, &reply);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(reply.remaining_ms(), seen_c.load());
  // 2000 ms less 10% at each hop: 1800, 1620, 1458 ms, plus up to 20 ms a
  // hop: gRPC rounds the grpc-timeout it sends up (coarser units, a cached
  // clock), so a hop may see a few ms more than its caller had left.
  EXPECT_LE(seen_a.load(), 1800 + 20);
  EXPECT_LE(seen_b.load(), 1620 + 40);
  EXPECT_LE(seen_c.load(), 1458 + 60);
  EXPECT_GT(seen_c.load(), 1000);  // loopback hops cost far less than the reserve
  EXPECT_EQ(guard->stats().served, 3u);
}

TEST(GrpcServerGuard, DeadlineIsClampedToTheServersMaximum) {
  auto guard = Guard({.limits = {.default_budget = 1s, .max_budget = 3s}, .reserve = {}});
  std::atomic<std::int64_t> seen{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->Serve(sc, [&](CallContext& ctx) {
      seen = RemainingMs(ctx);
      return grpc::Status::OK;
    });
  });
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  ASSERT_TRUE(testkit::CallWithin(*stub, std::chrono::hours(1000), &reply).ok());
  EXPECT_LE(seen.load(), 3000);
  EXPECT_GT(seen.load(), 2000);
  EXPECT_EQ(guard->stats().clamped, 1u);

  // Past the year 2262, where gRPC's system_clock deadline overflows: still
  // the server's maximum, not a deadline spent on arrival.
  for (const char* timeout : {"2067000H", "99999999H"}) {
    seen = 0;
    const testkit::RawAnswer a =
        testkit::RawUnaryCall(server.address(), testkit::kSayPath, "", {{"grpc-timeout", timeout}});
    EXPECT_EQ(a.grpc_status, "0") << timeout << ": " << a.grpc_message;
    EXPECT_LE(seen.load(), 3000) << timeout;
    EXPECT_GT(seen.load(), 2000) << timeout;
  }
  EXPECT_EQ(guard->stats().clamped, 3u);
  EXPECT_EQ(guard->stats().expired_refused, 0u);

  grpc::ClientContext no_deadline;  // gets the server's default
  ASSERT_TRUE(stub->Say(&no_deadline, EchoRequest(), &reply).ok());
  EXPECT_LE(seen.load(), 1000);
  EXPECT_GT(seen.load(), 500);
}

// Without a store the guard still refuses a key it cannot read: a handler
// that deduplicates on ctx.idempotency_key itself (as the demo's service C
// does), or passes it on to the calls it makes, would see none.
TEST(GrpcServerGuard, AnUnreadableIdempotencyKeyIsRefusedBeforeTheHandlerWithoutAStore) {
  auto guard = Guard();
  std::atomic<int> handled{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->Serve(sc, [&](CallContext&) {
      ++handled;
      return grpc::Status::OK;
    });
  });
  testkit::ExpectHostileKeysRefused(server.address());
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(guard->stats().invalid_keys, 12u);  // 6 keys, twice
}

TEST(GrpcServerGuard, ASpentCallIsRefusedBeforeItsHandler) {
  // The hop keeps 500 ms to answer; a caller granting 100 ms leaves nothing.
  auto guard = Guard({.reserve = {.overhead = 500ms}});
  std::atomic<int> handled{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    return guard->Serve(sc, [&](CallContext&) {
      ++handled;
      return grpc::Status::OK;
    });
  });
  auto stub = testkit::Stub(server.address());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 100ms);
  EchoReply reply;
  const grpc::Status s = stub->Say(&context, EchoRequest(), &reply);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(handled.load(), 0);
  EXPECT_EQ(guard->stats().expired_refused, 1u);
  const auto trailers = context.GetServerTrailingMetadata();
  const auto it = trailers.find("grpc-retry-pushback-ms");
  ASSERT_NE(it, trailers.end());
  EXPECT_EQ(std::string(it->second.data(), it->second.size()), "-1");
}

TEST(GrpcServerGuard, PushbackStopEndsAPlainClientsNativeRetries) {
  auto guard = Guard();
  std::atomic<int> arrivals{0};
  std::atomic<bool> gave_up{true};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    ++arrivals;
    return guard->Serve(sc, [&](CallContext& ctx) {
      ctx.downstream_gave_up = gave_up.load();
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "downstream down");
    });
  });
  auto stub = testkit::Stub(server.address(), kGrpcNativeRetries);
  EchoReply reply;
  EXPECT_EQ(testkit::CallWithin(*stub, 5000ms, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(arrivals.load(), 1);
  EXPECT_EQ(guard->stats().marked_no_retry, 1u);

  // The same failure without a give-up: gRPC retries it, so the count above
  // is the pushback's doing.
  gave_up = false;
  arrivals = 0;
  EXPECT_EQ(testkit::CallWithin(*stub, 5000ms, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(arrivals.load(), 3);
}

TEST(GrpcServerGuard, GrpcsOwnRetryAttemptCarriesTheRetryFlag) {
  auto guard = Guard();
  std::atomic<int> arrivals{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply& out) {
    const bool first = ++arrivals == 1;
    return guard->Serve(sc, [&](CallContext& ctx) {
      out.set_retry_flag(ctx.incoming_is_retry);
      return first ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "once") : grpc::Status::OK;
    });
  });
  auto stub = testkit::Stub(server.address(), kGrpcNativeRetries);
  EchoReply reply;
  ASSERT_TRUE(testkit::CallWithin(*stub, 5000ms, &reply).ok());
  EXPECT_EQ(arrivals.load(), 2);
  EXPECT_TRUE(reply.retry_flag());
}

TEST(GrpcServerGuard, AShedCallAnswersDoNotRetryAndSkipsTheHandler) {
  auto shed = PipelineBuilder().AddBulkhead(BulkheadOptions{.max_concurrent = 1}).Build().value();
  auto guard = Guard({.pipeline = shed});
  std::latch inside(1), release(1);
  std::atomic<int> handled{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest& in, EchoReply&) {
    return guard->Serve(sc, [&](CallContext&) {
      ++handled;
      if (in.text() == "hold") {
        inside.count_down();
        release.wait();
      }
      return grpc::Status::OK;
    });
  });
  auto stub = testkit::Stub(server.address(), kGrpcNativeRetries);
  std::thread holder([&] {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    EchoRequest hold;
    hold.set_text("hold");
    EchoReply reply;
    EXPECT_TRUE(stub->Say(&context, hold, &reply).ok());
  });
  inside.wait();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  EchoReply reply;
  const grpc::Status s = stub->Say(&context, EchoRequest(), &reply);
  release.count_down();
  holder.join();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(handled.load(), 1);  // only the holder; the native retries stopped too
  EXPECT_EQ(guard->stats().shed, 1u);
  const auto trailers = context.GetServerTrailingMetadata();
  const auto it = trailers.find("grpc-retry-pushback-ms");
  ASSERT_NE(it, trailers.end());
  EXPECT_EQ(std::string(it->second.data(), it->second.size()), "-1");
}

TEST(GrpcServerGuard, HandlersStopFiresWhenTheClientCancels) {
  auto guard = Guard();
  std::latch inside(1);
  std::atomic<bool> stopped{false};
  const auto start = std::chrono::steady_clock::now();
  {
    EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
      return guard->Serve(sc, [&](CallContext& ctx) {
        inside.count_down();
        std::mutex mu;
        std::condition_variable_any cv;
        std::unique_lock lock(mu);
        // Bounded: without the stop it gives up after 5 s (the deadline is 10 s).
        cv.wait_for(lock, ctx.stop, 5s, [] { return false; });
        stopped = ctx.stop.stop_requested();
        return grpc::Status(grpc::StatusCode::CANCELLED, "stopped");
      });
    });
    auto stub = testkit::Stub(server.address());
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    std::thread canceller([&] {
      inside.wait();
      context.TryCancel();
    });
    EchoReply reply;
    EXPECT_EQ(stub->Say(&context, EchoRequest(), &reply).error_code(), grpc::StatusCode::CANCELLED);
    canceller.join();
  }  // the server's shutdown waits for the handler and the guard's accounting
  // The handler's stop came from the cancellation, long before its deadline.
  EXPECT_TRUE(stopped.load());
  EXPECT_EQ(guard->stats().client_cancelled, 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

}  // namespace
}  // namespace stormguard::rpc
