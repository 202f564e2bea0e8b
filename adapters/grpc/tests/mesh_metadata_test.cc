// The Envoy sidecar's metadata over real gRPC: a call the sidecar retried
// (x-envoy-attempt-count >= 2) reaches its guarded handler as a retry; the
// clients ask their sidecar not to retry (x-envoy-max-retries: 0) only when told.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "guard_helpers.h"
#include "raw_grpc_call.h"
#include "stormguard/grpc/callback_client.h"
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace mesh_test {
using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

// What one call written by hand with `metadata` made of the guarded handler:
// its retry flag, or nothing when the handler never ran.
std::optional<bool> ServedAsRetry(const std::string& address, std::atomic<int>& handled,
                                  const std::vector<std::pair<std::string, std::string>>& metadata) {
  const int before = handled.load();
  const testkit::RawAnswer a = testkit::RawUnaryCall(address, testkit::kSayPath, "", metadata);
  EchoReply reply;
  if (a.grpc_status != "0" || handled.load() == before || !reply.ParseFromString(a.reply)) return std::nullopt;
  return reply.retry_flag();
}

TEST(GrpcMeshTest, TheSidecarsAttemptCountMarksTheServedCallAsARetry) {
  auto guard = testkit::Guard();
  std::atomic<int> handled{0};
  EchoServer server([&](grpc::ServerContext& sc, const EchoRequest&, EchoReply& out) {
    return guard->Serve(sc, [&](CallContext& ctx) {
      out.set_retry_flag(ctx.incoming_is_retry);
      ++handled;
      return grpc::Status::OK;
    });
  });
  // A retry only from 2 on, and only as plain digits (whitespace around them
  // aside, as for x-stormguard-attempt).
  for (const char* retry : {"2", " 2", "2 ", "3", "999999999999999999"}) {
    EXPECT_EQ(ServedAsRetry(server.address(), handled, {{"x-envoy-attempt-count", retry}}), true) << retry;
  }
  const std::vector<std::string> ignored = {"",
                                            "0",
                                            "1",
                                            "-1",
                                            "+2",
                                            "2x",
                                            "0x2",
                                            "99999999999999999999999",
                                            std::string(10240, '2'),
                                            std::string(10240, 'x')};
  for (const std::string& value : ignored) {
    SCOPED_TRACE("'" + value.substr(0, 30) + "' (" + std::to_string(value.size()) + " bytes)");
    EXPECT_EQ(ServedAsRetry(server.address(), handled, {{"x-envoy-attempt-count", value}}), false);
  }
  // Not printable ASCII: gRPC may refuse the call itself; if it is served,
  // it is no retry.
  for (const std::string& bytes : {std::string("\xff\xfe"), std::string("\xef\xbc\x92")}) {
    EXPECT_NE(ServedAsRetry(server.address(), handled, {{"x-envoy-attempt-count", bytes}}), true);
  }
  // Repeated: any copy above 1 makes it a retry.
  using Meta = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(ServedAsRetry(server.address(), handled,
                          Meta{{"x-envoy-attempt-count", "1"}, {"x-envoy-attempt-count", "2"}}),
            true);
  EXPECT_EQ(ServedAsRetry(server.address(), handled,
                          Meta{{"x-envoy-attempt-count", "2"}, {"x-envoy-attempt-count", "1"}}),
            true);
  EXPECT_EQ(ServedAsRetry(server.address(), handled,
                          Meta{{"x-envoy-attempt-count", "1"}, {"x-envoy-attempt-count", "0"}}),
            false);
}

// A server that fails each call's first attempt and records the
// x-envoy-max-retries of every arrival ("<none>" when absent).
struct LimitRecorder {
  std::mutex mu;
  std::vector<std::string> limits;
  EchoServer server{[this](grpc::ServerContext& sc, const EchoRequest&, EchoReply&) {
    const auto& m = sc.client_metadata();
    const auto it = m.find("x-envoy-max-retries");
    std::lock_guard lock(mu);
    limits.push_back(it == m.end() ? "<none>" : std::string(it->second.data(), it->second.size()));
    return limits.size() % 2 == 1 ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "first") : grpc::Status::OK;
  }};
};

GrpcClientOptions MeshRetrying(bool ask_sidecar) {
  RetryOptions retry{.max_attempts = 2};
  retry.backoff.base = 1ms;
  retry.backoff.cap = 1ms;
  return {.pipeline = PipelineBuilder().AddRetry(retry).Build().value(), .ask_sidecar_not_to_retry = ask_sidecar};
}

TEST(GrpcMeshTest, TheClientAsksItsSidecarNotToRetryOnlyWhenTold) {
  LimitRecorder recorder;
  auto stub = testkit::Stub(recorder.server.address());
  for (const bool ask : {true, false}) {
    GrpcClient client = GrpcClient::Create(MeshRetrying(ask)).value();
    EchoReply reply;
    const GrpcResult r = client.Call<EchoReply>([&](grpc::ClientContext& c,
                                                    EchoReply* out) { return stub->Say(&c, EchoRequest(), out); },
                                                &reply);
    EXPECT_TRUE(r.ok()) << r.status.ToString();
  }
  std::lock_guard lock(recorder.mu);
  EXPECT_EQ(recorder.limits, (std::vector<std::string>{"0", "0", "<none>", "<none>"}));  // retries too
}

TEST(GrpcMeshTest, TheCallbackClientAsksItsSidecarNotToRetryOnlyWhenTold) {
  LimitRecorder recorder;
  auto stub = testkit::Stub(recorder.server.address());
  for (const bool ask : {true, false}) {
    GrpcCallbackClient client = GrpcCallbackClient::Create(MeshRetrying(ask)).value();
    CallContext parent{.deadline = Deadline::After(Clock::Real().Now(), 5s)};
    EchoRequest request;
    std::promise<GrpcResult> answered;
    client.Call<EchoReply>(
        parent,
        [&](grpc::ClientContext* c, EchoReply* out, std::function<void(grpc::Status)> cb) {
          stub->async()->Say(c, &request, out, std::move(cb));
        },
        [&](GrpcResult r, EchoReply) { answered.set_value(std::move(r)); });
    std::future<GrpcResult> f = answered.get_future();
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(f.get().ok());
  }
  std::lock_guard lock(recorder.mu);
  EXPECT_EQ(recorder.limits, (std::vector<std::string>{"0", "0", "<none>", "<none>"}));
}

}  // namespace mesh_test
}  // namespace stormguard::rpc
