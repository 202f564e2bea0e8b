// GrpcClient, GrpcCallbackClient and ServerGuard (Serve and ServeCallback)
// given a live handle (registry.Follow) on real loopback servers: each call
// runs on the configuration in force when it starts, and a call in flight
// keeps its own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "follow_testing.h"
#include "stormguard/config/registry.h"
#include "stormguard/grpc/callback_client.h"
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using reload_testing::FirstCallHeld;
using reload_testing::Reload;
using ::testing::ElementsAre;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

// A server that fails every call with `code`, counting them.
struct Failing {
  explicit Failing(grpc::StatusCode code)
      : server([this, code](grpc::ServerContext&, const EchoRequest&, EchoReply&) {
          ++arrivals;
          return grpc::Status(code, "failing");
        }) {}
  std::atomic<int> arrivals{0};
  EchoServer server;  // after the counter: stops before it goes
  std::unique_ptr<test::Echo::Stub> stub = testkit::Stub(server.address());
};

template <class Client>
Client Made(Result<Client> client) {
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(client).value();
}

GrpcResult CallOnce(const GrpcClient& client, test::Echo::Stub& stub,
                    const CallOptions& options = {.idempotent = true}) {
  EchoReply reply;
  return client.Call<EchoReply>([&](grpc::ClientContext& c,
                                    EchoReply* out) { return stub.Say(&c, EchoRequest(), out); },
                                &reply, options);
}

// What the callback client's call needs until it answers, shared with it so
// that a test giving up waiting leaves nothing dangling.
struct PendingCall {
  CallContext parent{.deadline = Deadline::After(Clock::Real().Now(), 5s)};
  EchoRequest request;
  std::promise<GrpcResult> answered;
};

GrpcResult CallOnce(const GrpcCallbackClient& client, test::Echo::Stub& stub) {
  auto call = std::make_shared<PendingCall>();
  std::future<GrpcResult> answer = call->answered.get_future();
  client.Call<EchoReply>(
      call->parent,
      [call, &stub](grpc::ClientContext* c, EchoReply* out, std::function<void(grpc::Status)> cb) {
        stub.async()->Say(c, &call->request, out, std::move(cb));
      },
      [call](GrpcResult r, EchoReply) { call->answered.set_value(std::move(r)); }, {.idempotent = true});
  if (answer.wait_for(10s) != std::future_status::ready) {
    ADD_FAILURE() << "no answer within 10 s";
    return {.status = Status::DeadlineExceeded("no answer")};
  }
  return answer.get();
}

// A client (GrpcClient or GrpcCallbackClient) of an UNAVAILABLE server
// makes one attempt, then three after the reload.
template <class Client>
void ExpectAttemptsFollowTheReload() {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  Failing s(grpc::StatusCode::UNAVAILABLE);
  const Client client = Made(Client::Create({.pipeline = registry.Follow("d")}));
  EXPECT_EQ(CallOnce(client, *s.stub).attempts, 1);
  Reload(registry, reload_testing::kThreeAttempts);
  EXPECT_EQ(CallOnce(client, *s.stub).attempts, 3);
  EXPECT_EQ(s.arrivals.load(), 4);
}

TEST(GrpcFollowReload, ClientTakesEachReload) { ExpectAttemptsFollowTheReload<GrpcClient>(); }

TEST(GrpcFollowReload, CallbackClientTakesEachReload) { ExpectAttemptsFollowTheReload<GrpcCallbackClient>(); }

TEST(GrpcFollowReload, ClientCallInFlightFinishesOnThePipelineItStartedOn) {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  FirstCallHeld held;
  EchoServer server([&](grpc::ServerContext&, const EchoRequest&, EchoReply&) {
    held.Arrive();
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "failing");
  });
  auto stub = testkit::Stub(server.address());
  const GrpcClient client = Made(GrpcClient::Create({.pipeline = registry.Follow("d")}));
  auto first = std::async(std::launch::async, [&] { return CallOnce(client, *stub); });
  ASSERT_TRUE(held.WaitForFirst());
  Reload(registry, reload_testing::kThreeAttempts);
  held.Release();
  ASSERT_EQ(first.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(first.get().attempts, 1);  // started on one attempt
  EXPECT_EQ(CallOnce(client, *stub).attempts, 3);
  EXPECT_EQ(held.arrivals(), 4);
}

// UNKNOWN may have taken effect: through a reloaded retry that claims every
// call idempotent, a call that says it is not (and has no key) still goes once.
TEST(GrpcFollowReload, NonIdempotentCallIsSentOnceWhateverAReloadedRetryClaims) {
  config::Registry registry;
  Reload(registry, reload_testing::kOneAttempt);
  Failing s(grpc::StatusCode::UNKNOWN);
  const GrpcClient client = Made(GrpcClient::Create({.pipeline = registry.Follow("d")}));
  Reload(registry, reload_testing::kIdempotentRetry);
  EXPECT_EQ(CallOnce(client, *s.stub, {.idempotent = false}).attempts, 1);
  EXPECT_EQ(CallOnce(client, *s.stub, {.idempotent = true}).attempts, 3);
  EXPECT_EQ(s.arrivals.load(), 4);
}

TEST(GrpcFollowReload, CreateRefusesARetryOrHedgeThatClaimsEveryCallIdempotent) {
  for (const auto& [pipeline, stage] : reload_testing::PipelinesClaimingEveryCallIdempotent()) {
    reload_testing::ExpectRefusedAsRepeatingEveryCall(GrpcClient::Create({.pipeline = pipeline}).status(), stage);
    reload_testing::ExpectRefusedAsRepeatingEveryCall(GrpcCallbackClient::Create({.pipeline = pipeline}).status(),
                                                      stage);
  }
}

// A guard that follows "d" (no stages at first) and counts the calls its
// handler runs.
struct FollowingGuard {
  FollowingGuard() {
    Reload(registry, reload_testing::kNoStages);
    auto g = ServerGuard::Create({.pipeline = registry.Follow("d")});
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    guard = std::move(g).value();
  }
  config::Registry registry;
  std::unique_ptr<ServerGuard> guard;
  std::atomic<int> handled{0};
};

std::vector<grpc::StatusCode> CodesOfTwoCalls(test::Echo::Stub& stub) {
  std::vector<grpc::StatusCode> codes;
  for (int i = 0; i < 2; ++i) {
    EchoReply reply;
    codes.push_back(testkit::CallWithin(stub, 5s, &reply).error_code());
  }
  return codes;
}

// Two calls on no stages, then two on a rate limiter that lets one through.
void ExpectShedOnlyAfterTheReload(FollowingGuard& g, const std::string& address) {
  auto stub = testkit::Stub(address);
  EXPECT_THAT(CodesOfTwoCalls(*stub), ElementsAre(grpc::StatusCode::OK, grpc::StatusCode::OK));
  Reload(g.registry, reload_testing::kOneCallThenShed);
  EXPECT_THAT(CodesOfTwoCalls(*stub), ElementsAre(grpc::StatusCode::OK, grpc::StatusCode::RESOURCE_EXHAUSTED));
  EXPECT_EQ(g.handled.load(), 3);
  EXPECT_EQ(g.guard->stats().shed, 1u);
}

TEST(GrpcFollowReload, ServeTakesEachReload) {
  FollowingGuard g;
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    return g.guard->Serve(sc, [&](CallContext&) {
      ++g.handled;
      return grpc::Status::OK;
    });
  });
  ExpectShedOnlyAfterTheReload(g, server.address());
}

TEST(GrpcFollowReload, ServeCallbackTakesEachReload) {
  FollowingGuard g;
  testkit::CallbackEchoServer server([&](grpc::CallbackServerContext& sc, const EchoRequest&, EchoReply&) {
    return g.guard->ServeCallback(sc, [&](CallContext&, ServerAnswer answer) {
      ++g.handled;
      answer(grpc::Status::OK);
    });
  });
  ExpectShedOnlyAfterTheReload(g, server.address());
}

// A server runs each call once: a reload that brings a retry is not run
// around the handler; the call is served unguarded and counted.
TEST(GrpcFollowReload, ServeRunsOnceAndCountsAReloadThatBringsARetry) {
  FollowingGuard g;
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    return g.guard->Serve(sc, [&](CallContext&) {
      ++g.handled;
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "failing");
    });
  });
  Reload(g.registry, reload_testing::kThreeAttempts);
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  EXPECT_EQ(testkit::CallWithin(*stub, 5s, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(g.handled.load(), 1);
  EXPECT_EQ(g.guard->stats().misconfigured, 1u);
}

}  // namespace
}  // namespace stormguard::rpc
