// GrpcCallbackClient against real gRPC servers on loopback: retries,
// pushback, hedging with the loser cancelled at its server, many calls in
// flight from one thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <string>
#include <thread>
#include <utility>

#include "stormguard/exec/executor.h"
#include "stormguard/grpc/callback_client.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

GrpcCallbackClient RetryingClient(int max_attempts) {
  RetryOptions retry{.max_attempts = max_attempts};
  retry.backoff.base = 1ms;
  retry.backoff.cap = 1ms;
  auto pipeline = PipelineBuilder().AddRetry(retry).Build().value();
  return GrpcCallbackClient::Create({.pipeline = pipeline}).value();
}

struct Answer {
  GrpcResult result;
  EchoReply reply;
};

// Starts one call and waits for its answer (bounded: a lost answer fails the test).
Answer CallAndWait(const GrpcCallbackClient& client, test::Echo::Stub& stub, CallContext& parent,
                   const CallOptions& options = {}) {
  EchoRequest request;
  request.set_text("hello");
  std::promise<Answer> answered;
  client.Call<EchoReply>(
      parent,
      [&stub, &request](grpc::ClientContext* c, EchoReply* out, std::function<void(grpc::Status)> cb) {
        stub.async()->Say(c, &request, out, std::move(cb));
      },
      [&answered](GrpcResult r, EchoReply reply) {
        answered.set_value({std::move(r), std::move(reply)});
      },
      options);
  std::future<Answer> f = answered.get_future();
  EXPECT_EQ(f.wait_for(10s), std::future_status::ready);
  return f.get();
}

CallContext Parent(Duration budget = 5s) { return {.deadline = Deadline::After(Clock::Real().Now(), budget)}; }

TEST(GrpcCallbackClient, RetriesWithAFreshContextAndTheChainMetadata) {
  std::atomic<int> arrivals{0};
  std::string attempt_header, key_header;
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest& in, EchoReply& out) {
    if (++arrivals == 1) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "warming up");
    const auto& m = sc.client_metadata();
    if (auto it = m.find("x-stormguard-attempt"); it != m.end())
      attempt_header.assign(it->second.data(), it->second.size());
    if (auto it = m.find("idempotency-key"); it != m.end()) key_header.assign(it->second.data(), it->second.size());
    out.set_text(in.text());
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  CallContext parent = Parent();
  const Answer a = CallAndWait(RetryingClient(3), *stub, parent, {.idempotency_key = "order-7"});
  ASSERT_TRUE(a.result.ok()) << a.result.status.ToString();
  EXPECT_EQ(a.result.attempts, 2);
  EXPECT_EQ(a.reply.text(), "hello");
  EXPECT_EQ(attempt_header, "2");
  EXPECT_EQ(key_header, "order-7");
  EXPECT_FALSE(parent.downstream_gave_up);
}

TEST(GrpcCallbackClient, PushbackStopEndsTheRetriesAndTellsTheCaller) {
  std::atomic<int> arrivals{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    ++arrivals;
    sc.AddTrailingMetadata("grpc-retry-pushback-ms", "-1");
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "gave up below");
  });
  auto stub = testkit::Stub(server.address());
  CallContext parent = Parent();
  const Answer a = CallAndWait(RetryingClient(3), *stub, parent);
  EXPECT_EQ(a.result.status.code(), StatusCode::kUnavailable);
  EXPECT_TRUE(a.result.status.hints().pushback_stop);
  EXPECT_EQ(a.result.attempts, 1);
  EXPECT_EQ(arrivals.load(), 1);
  EXPECT_TRUE(parent.downstream_gave_up);
}

TEST(GrpcCallbackClient, AnInvalidIdempotencyKeyIsRefusedBeforeAnythingIsSent) {
  std::atomic<int> arrivals{0};
  EchoServer server([&](grpc::ServerContext&, const EchoRequest&, EchoReply&) {
    ++arrivals;
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  CallContext parent = Parent();
  const Answer a = CallAndWait(RetryingClient(3), *stub, parent, {.idempotency_key = std::string(300, 'k')});
  EXPECT_EQ(a.result.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.result.status.message().find("idempotency_key"), std::string::npos);
  EXPECT_EQ(a.result.attempts, 0);
  EXPECT_EQ(arrivals.load(), 0);
}

// A primary that answers only when cancelled (bounded: 5 s, longer than
// the clients' 2 s deadline), and fast hedges.
struct SlowPrimaryServer {
  std::atomic<int> arrivals{0};
  std::atomic<int> cancelled_at_server{0};
  std::promise<void> primary_finished;
  EchoServer server{[this](grpc::ServerContext& sc, const EchoRequest& in, EchoReply& out) {
    if (++arrivals == 1) {
      const auto arrived = std::chrono::steady_clock::now();
      for (int i = 0; i < 500 && !sc.IsCancelled(); ++i) std::this_thread::sleep_for(10ms);
      // Cancelled by its client, long before its 2 s deadline could.
      if (sc.IsCancelled() && std::chrono::steady_clock::now() - arrived < 1s) ++cancelled_at_server;
      primary_finished.set_value();
      out.set_text("slow");
      return grpc::Status::OK;
    }
    out.set_text("hedge " + in.text());
    return grpc::Status::OK;
  }};

  void ExpectPrimaryCancelled() {
    ASSERT_EQ(primary_finished.get_future().wait_for(10s), std::future_status::ready);
    EXPECT_EQ(cancelled_at_server.load(), 1);
    EXPECT_EQ(arrivals.load(), 2);
  }
};

PipelineRef HedgingPipeline() {
  auto workers = Executor::Create({.threads = 2}).value();
  return PipelineBuilder().AddHedge({.delay = 50ms, .max_hedged_attempts = 1}, workers).Build().value();
}

TEST(GrpcCallbackClient, HedgeWinsAndTheSlowPrimaryIsCancelledAtItsServer) {
  SlowPrimaryServer s;
  auto stub = testkit::Stub(s.server.address());
  auto client = GrpcCallbackClient::Create({.pipeline = HedgingPipeline()}).value();
  CallContext parent = Parent();
  const auto started = std::chrono::steady_clock::now();
  const Answer a = CallAndWait(client, *stub, parent, {.idempotent = true});  // a read: hedged
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_TRUE(a.result.ok()) << a.result.status.ToString();
  EXPECT_EQ(a.reply.text(), "hedge hello");
  EXPECT_EQ(a.result.attempts, 2);
  EXPECT_LT(took, 3s);  // the primary alone would hold the call for 5 s
  s.ExpectPrimaryCancelled();
}

TEST(GrpcClient, BlockingHedgeWinsAndTheSlowPrimaryIsCancelledAtItsServer) {
  SlowPrimaryServer s;
  auto stub = testkit::Stub(s.server.address());
  auto client = GrpcClient::Create({.pipeline = HedgingPipeline()}).value();
  EchoRequest request;
  request.set_text("hello");
  EchoReply reply;
  CallContext parent = Parent();
  const GrpcResult r =
      client.Call<EchoReply>(parent,
                             [&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, request, out); },
                             &reply, {.idempotent = true});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(reply.text(), "hedge hello");
  EXPECT_EQ(r.attempts, 2);
  s.ExpectPrimaryCancelled();
}

TEST(GrpcCallbackClient, ManyCallsInFlightFromOneThread) {
  constexpr int kCalls = 8;
  std::latch all_arrived(kCalls);
  EchoServer server([&](grpc::ServerContext&, const EchoRequest& in, EchoReply& out) {
    all_arrived.count_down();
    // Bounded: each waits for the others, which only a client that parks
    // no thread per call can have in flight from one thread.
    const auto until = std::chrono::steady_clock::now() + 5s;
    while (!all_arrived.try_wait() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(1ms);
    out.set_text(all_arrived.try_wait() ? in.text() : "alone");
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  GrpcCallbackClient client = RetryingClient(1);
  EchoRequest request;
  request.set_text("together");
  std::vector<CallContext> parents(kCalls, Parent());
  std::vector<std::promise<Answer>> answers(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    client.Call<EchoReply>(
        parents[i],
        [&](grpc::ClientContext* c, EchoReply* out, std::function<void(grpc::Status)> cb) {
          stub->async()->Say(c, &request, out, std::move(cb));
        },
        [&answers, i](GrpcResult r, EchoReply reply) {
          answers[i].set_value({std::move(r), std::move(reply)});
        });
  }
  for (auto& p : answers) {
    std::future<Answer> f = p.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    const Answer a = f.get();
    ASSERT_TRUE(a.result.ok()) << a.result.status.ToString();
    EXPECT_EQ(a.reply.text(), "together");
  }
}

}  // namespace
}  // namespace stormguard::rpc
