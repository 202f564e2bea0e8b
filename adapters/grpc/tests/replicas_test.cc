// GrpcClient::CallReplicas: each attempt on the channel of a replica the
// call has not tried; a failing replica is ejected.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

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

}  // namespace
}  // namespace stormguard::rpc
