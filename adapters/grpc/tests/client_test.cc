// GrpcClient against real gRPC servers on loopback: plain ones and guarded ones.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <mutex>
#include <string>
#include <thread>

#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

std::string Header(const grpc::ServerContext& sc, std::string_view name) {
  const auto& m = sc.client_metadata();
  const auto it = m.find(grpc::string_ref(name.data(), name.size()));
  return it == m.end() ? "<none>" : std::string(it->second.data(), it->second.size());
}

GrpcClient Client(int max_attempts, Duration default_timeout = 2s) {
  RetryOptions retry{.max_attempts = max_attempts};
  retry.backoff.base = 1ms;
  retry.backoff.cap = 1ms;
  auto pipeline = PipelineBuilder().AddRetry(retry).Build().value();
  return GrpcClient::Create({.pipeline = pipeline, .default_timeout = default_timeout}).value();
}

struct Arrival {
  std::int64_t remaining_ms = 0;
  std::string attempt_header;
  std::string key_header;
};

TEST(GrpcClient, RetriesAPlainServerWithOnlyTheStandardDeadline) {
  std::mutex mu;
  std::vector<Arrival> arrivals;
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest& in, EchoReply& out) {
    std::lock_guard lock(mu);
    arrivals.push_back({std::chrono::duration_cast<std::chrono::milliseconds>(sc.deadline() -
                                                                              std::chrono::system_clock::now())
                            .count(),
                        Header(sc, "x-stormguard-attempt"), Header(sc, "idempotency-key")});
    if (arrivals.size() == 1) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "warming up");
    out.set_text(in.text());
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  GrpcClient client = Client(3);
  EchoRequest request;
  request.set_text("hello");
  EchoReply reply;
  const GrpcResult r =
      client.Call<EchoReply>([&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, request, out); },
                             &reply, {.idempotency_key = "order-7"});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.attempts, 2);
  EXPECT_EQ(reply.text(), "hello");
  ASSERT_EQ(arrivals.size(), 2u);
  for (const Arrival& a : arrivals) {
    // The default timeout, as grpc-timeout, plus up to 20 ms: gRPC rounds the
    // timeout it sends up (coarser units, a cached clock); 2009 was seen under load.
    EXPECT_LE(a.remaining_ms, 2000 + 20);
    EXPECT_GT(a.remaining_ms, 1000);
    EXPECT_EQ(a.key_header, "order-7");
  }
  EXPECT_EQ(arrivals[0].attempt_header, "<none>");
  EXPECT_EQ(arrivals[1].attempt_header, "2");
}

TEST(GrpcClient, PushbackStopEndsTheRetriesAndTellsTheCaller) {
  std::atomic<int> arrivals{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    ++arrivals;
    sc.AddTrailingMetadata("grpc-retry-pushback-ms", "-1");
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "gave up below");
  });
  auto stub = testkit::Stub(server.address());
  GrpcClient client = Client(3);
  CallContext parent{.deadline = Deadline::After(Clock::Real().Now(), 5s)};
  EchoReply reply;
  const GrpcResult r = client.Call<EchoReply>(
      parent, [&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, EchoRequest(), out); }, &reply);
  EXPECT_EQ(r.status.code(), StatusCode::kUnavailable);
  EXPECT_TRUE(r.status.hints().pushback_stop);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(arrivals.load(), 1);
  EXPECT_TRUE(parent.downstream_gave_up);
}

TEST(GrpcClient, AnInvalidIdempotencyKeyIsRefusedBeforeAnythingIsSent) {
  GrpcClient client = Client(3);
  int attempts = 0;
  EchoReply reply;
  const GrpcResult r = client.Call<EchoReply>(
      [&](grpc::ClientContext&, EchoReply*) {
        ++attempts;
        return grpc::Status::OK;
      },
      &reply, {.idempotency_key = "bad\nkey"});
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("idempotency_key"), std::string::npos);
  EXPECT_EQ(attempts, 0);
}

TEST(GrpcClient, StopCancelsTheAttemptInFlight) {
  std::latch inside(1), done(1);
  std::atomic<bool> server_saw_cancel{false};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    inside.count_down();
    // Bounded wait for the client's cancellation, as a plain handler polls.
    for (int i = 0; i < 500 && !sc.IsCancelled(); ++i) std::this_thread::sleep_for(10ms);
    server_saw_cancel = sc.IsCancelled();
    done.count_down();
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  GrpcClient client = Client(3);
  std::stop_source stop;
  CallContext parent{.deadline = Deadline::After(Clock::Real().Now(), 10s), .stop = stop.get_token()};
  std::thread canceller([&] {
    inside.wait();
    stop.request_stop();
  });
  EchoReply reply;
  const GrpcResult r = client.Call<EchoReply>(
      parent, [&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, EchoRequest(), out); }, &reply);
  canceller.join();
  done.wait();
  EXPECT_EQ(r.status.code(), StatusCode::kCancelled);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_TRUE(server_saw_cancel.load());
}

TEST(GrpcClient, RetryFlagAndKeyReachAGuardedHandler) {
  auto guard = ServerGuard::Create({}).value();
  std::atomic<int> arrivals{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply& out) {
    const bool first = ++arrivals == 1;
    return guard->Serve(sc, [&](CallContext& ctx) {
      out.set_retry_flag(ctx.incoming_is_retry);
      out.set_idempotency_key(ctx.idempotency_key);
      return first ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "once") : grpc::Status::OK;
    });
  });
  auto stub = testkit::Stub(server.address());
  GrpcClient client = Client(3);
  EchoReply reply;
  const GrpcResult r =
      client.Call<EchoReply>([&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, EchoRequest(), out); },
                             &reply, {.idempotency_key = "pay-42"});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_TRUE(reply.retry_flag());
  EXPECT_EQ(reply.idempotency_key(), "pay-42");
}

}  // namespace
}  // namespace stormguard::rpc
