// GrpcClient::CallReplicas: each attempt on the channel of a replica the
// call has not tried; a failing replica is ejected.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/grpc/callback_client.h"
#include "stormguard/grpc/client.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

// A replica that answers with its own name, or fails UNAVAILABLE.
struct EchoReplica {
  explicit EchoReplica(bool fails)
      : server([this, fails](grpc::ServerContext&, const EchoRequest&, EchoReply& out) {
          ++calls;
          if (fails) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "sick");
          out.set_text(server_address);
          return grpc::Status::OK;
        }) {
    server_address = server.address();
  }
  std::atomic<int> calls{0};
  std::string server_address;
  EchoServer server;
};

GrpcClient ReplicaClient(std::shared_ptr<ReplicaSet> set, int attempts) {
  auto pipeline = PipelineBuilder().AddRetry({.max_attempts = attempts, .backoff = {.base = 1ms, .cap = 1ms}}).Build();
  EXPECT_TRUE(pipeline.ok());
  auto c = GrpcClient::Create({.pipeline = std::move(pipeline).value(), .replicas = std::move(set)});
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

GrpcResult Say(const GrpcClient& client, EchoReply& reply) {
  EchoRequest request;
  request.set_text("hi");
  return client.CallReplicas<EchoReply>(
      [&](grpc::ClientContext& c, const std::shared_ptr<grpc::Channel>& channel, EchoReply* out) {
        return test::Echo::NewStub(channel)->Say(&c, request, out);
      },
      &reply, {.idempotent = true});
}

TEST(GrpcReplicas, ARetryGoesToAnotherReplicaAndTheSickOneIsEjected) {
  EchoReplica a(false), b(false), sick(true);
  auto set = ReplicaSet::Create({.picker = PickerKind::kRoundRobin, .outlier = {.consecutive_failures = 3}},
                                {{a.server_address}, {b.server_address}, {sick.server_address}});
  ASSERT_TRUE(set.ok());
  std::shared_ptr<ReplicaSet> shared = std::move(set).value();
  GrpcClient client = ReplicaClient(shared, 2);
  for (int i = 0; i < 30; ++i) {
    EchoReply reply;
    GrpcResult r = Say(client, reply);
    ASSERT_TRUE(r.ok()) << i << ": " << r.status.ToString();
    EXPECT_NE(reply.text(), sick.server_address);
    EXPECT_LE(r.attempts, 2);
  }
  EXPECT_EQ(sick.calls, 3);
  EXPECT_EQ(a.calls + b.calls, 30);
}

TEST(GrpcReplicas, AnEmptySetFailsUnavailableAndNoSetIsRefused) {
  std::shared_ptr<ReplicaSet> empty = ReplicaSet::Create({}).value();
  GrpcClient client = ReplicaClient(empty, 1);
  EchoReply reply;
  GrpcResult r = Say(client, reply);
  EXPECT_EQ(r.status.code(), StatusCode::kUnavailable);
  GrpcClient plain = ReplicaClient(nullptr, 1);
  EXPECT_EQ(Say(plain, reply).status.code(), StatusCode::kFailedPrecondition);
}

// A stub per replica channel, kept while the test runs (a callback call
// needs its stub only to start).
class Stubs {
 public:
  test::Echo::Stub& For(const std::shared_ptr<grpc::Channel>& channel) {
    std::lock_guard lock(mu_);
    auto& stub = stubs_[channel.get()];
    if (!stub) stub = test::Echo::NewStub(channel);
    return *stub;
  }

 private:
  std::mutex mu_;
  std::map<grpc::Channel*, std::unique_ptr<test::Echo::Stub>> stubs_;
};

TEST(GrpcReplicas, TheCallbackClientRetriesOnAnotherReplicaToo) {
  EchoReplica good(false), sick(true);
  std::shared_ptr<ReplicaSet> set =
      ReplicaSet::Create({.picker = PickerKind::kRoundRobin, .outlier = {.consecutive_failures = 3}},
                         {{good.server_address}, {sick.server_address}})
          .value();
  auto pipeline = PipelineBuilder().AddRetry({.max_attempts = 2, .backoff = {.base = 1ms, .cap = 1ms}}).Build();
  GrpcCallbackClient client =
      GrpcCallbackClient::Create({.pipeline = std::move(pipeline).value(), .replicas = set}).value();
  Stubs stubs;
  EchoRequest request;
  request.set_text("hi");
  for (int i = 0; i < 20; ++i) {
    CallContext parent{.deadline = Deadline::After(Clock::Real().Now(), 5s)};
    std::promise<std::pair<GrpcResult, EchoReply>> answered;
    client.CallReplicas<EchoReply>(
        parent,
        [&](grpc::ClientContext* c, const std::shared_ptr<grpc::Channel>& channel, EchoReply* out,
            std::function<void(grpc::Status)> cb) { stubs.For(channel).async()->Say(c, &request, out, std::move(cb)); },
        [&](GrpcResult r, EchoReply reply) {
          answered.set_value({std::move(r), std::move(reply)});
        },
        {.idempotent = true});
    auto f = answered.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    auto [r, reply] = f.get();
    ASSERT_TRUE(r.ok()) << i << ": " << r.status.ToString();
    EXPECT_EQ(reply.text(), good.server_address);
  }
  EXPECT_EQ(sick.calls, 3);
  EXPECT_EQ(good.calls, 20);
}

}  // namespace
}  // namespace stormguard::rpc
