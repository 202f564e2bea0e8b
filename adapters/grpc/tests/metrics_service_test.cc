// The metrics service on a real gRPC server, next to the service it
// measures: a scrape over gRPC, decoded by the stub protoc generates from
// proto/stormguard/v1/metrics.proto, and checked by Debian's promtool.
#include "stormguard/grpc/metrics_service.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "promtool.h"
#include "stormguard/grpc/client.h"
#include "stormguard/v1/metrics.grpc.pb.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;

// Fails its first call, so the scrape shows a retry too.
class FlakyEcho final : public test::Echo::Service {
 public:
  grpc::Status Say(grpc::ServerContext*, const EchoRequest* in, EchoReply* out) override {
    if (calls_.fetch_add(1) == 0) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "warming up");
    out->set_text(in->text());
    return grpc::Status::OK;
  }

 private:
  std::atomic<int> calls_{0};
};

grpc::Status Scrape(const std::string& address, v1::ScrapeReply* reply) {
  auto stub = v1::Metrics::NewStub(testkit::Channel(address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  return stub->Scrape(&context, v1::ScrapeRequest(), reply);
}

TEST(MetricsService, ServesTheScrapeNextToTheServiceItMeasures) {
  MetricsListener metrics;
  FlakyEcho echo;
  MetricsService metrics_service(metrics);
  testkit::Loopback server({&echo, &metrics_service});

  RetryOptions retry{.max_attempts = 3};
  retry.backoff.base = retry.backoff.cap = 1ms;
  auto pipeline = PipelineBuilder({.listener = &metrics.For("echo")}).AddRetry(retry).Build().value();
  const GrpcClient client = GrpcClient::Create({.pipeline = pipeline}).value();
  auto stub = testkit::Stub(server.address());
  for (int i = 0; i < 3; ++i) {
    EchoReply reply;
    const GrpcResult r = client.Call<EchoReply>([&](grpc::ClientContext& c,
                                                    EchoReply* out) { return stub->Say(&c, EchoRequest(), out); },
                                                &reply);
    ASSERT_TRUE(r.ok()) << r.status.ToString();
  }

  v1::ScrapeReply reply;
  const grpc::Status s = Scrape(server.address(), &reply);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(reply.content_type(), MetricsListener::kContentType);
  EXPECT_EQ(reply.text(), metrics.Scrape());  // nothing ran since: the same text
  for (std::string_view series : {"stormguard_attempts_total{name=\"echo\",outcome=\"success\"} 3\n",
                                  "stormguard_attempts_total{name=\"echo\",outcome=\"transient\"} 1\n",
                                  // The histogram samples fast successes (1 in 16 per thread, see
                                  // docs/metrics.md): its count is an estimate, so only its presence.
                                  "stormguard_attempt_duration_seconds_count{name=\"echo\"} ",
                                  "stormguard_retry_calls_total{name=\"echo\",kind=\"successful_with_retry\"} 1\n",
                                  "stormguard_retry_calls_total{name=\"echo\",kind=\"successful_without_retry\"} 2\n",
                                  "stormguard_retry_retries_total{name=\"echo\"} 1\n"}) {
    EXPECT_NE(reply.text().find(series), std::string::npos) << series << "\n--- the scrape:\n" << reply.text();
  }
  const http::testkit::Lint lint = http::testkit::Promtool(reply.text());
  EXPECT_EQ(lint.exit_code, 0) << lint.output << "\n--- the scrape:\n" << reply.text();
  EXPECT_EQ(lint.output, "");
}

// The library's own encoding of the reply, read back by protobuf: lengths
// past one varint byte, and an empty scrape.
TEST(MetricsService, TheReplyEncodingIsProtobufs) {
  for (std::size_t size : {std::size_t{0}, std::size_t{127}, std::size_t{128}, std::size_t{20'000}}) {
    const std::string text(size, 'x');
    v1::ScrapeReply reply;
    ASSERT_TRUE(reply.ParseFromString(EncodeScrapeReply(text, "type/sub")));
    EXPECT_EQ(reply.text(), text);
    EXPECT_EQ(reply.content_type(), "type/sub");
  }
}

// Only its method is served: another on its path is unimplemented.
TEST(MetricsService, AnotherMethodIsUnimplemented) {
  MetricsListener metrics;
  MetricsService metrics_service(metrics);
  testkit::Loopback server({&metrics_service});
  auto stub = testkit::Stub(server.address());  // Echo, which this server does not serve
  EchoReply reply;
  EXPECT_EQ(testkit::CallWithin(*stub, 5000ms, &reply).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  v1::ScrapeReply scrape;
  ASSERT_TRUE(Scrape(server.address(), &scrape).ok());
  EXPECT_NE(scrape.text().find("stormguard_metrics_overflow_total 0\n"), std::string::npos) << scrape.text();
}

}  // namespace
}  // namespace stormguard::rpc
