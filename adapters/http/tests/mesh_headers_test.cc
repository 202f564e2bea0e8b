// The Envoy sidecar's headers over real HTTP: a request the sidecar retried
// (x-envoy-attempt-count >= 2) reaches its handler as a retry; the client
// asks its sidecar not to retry (x-envoy-max-retries: 0) only when told.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "client_test_util.h"
#include "middleware_test_util.h"
#include "stormguard/http/client.h"
#include "stormguard/http/server.h"

namespace stormguard::http {
namespace mesh_test {
using namespace std::chrono_literals;
using ::testing::ElementsAre;

struct HostileCount {
  std::string value;
  bool retry;
};

TEST(HttpMeshTest, TheSidecarsAttemptCountMarksTheServedRequestAsARetry) {
  testkit::TestServer srv;
  auto mw = testkit::MakeMiddleware();
  std::mutex mu;
  std::optional<bool> seen;  // the handler's retry flag; empty until it runs
  srv.server.Get("/work", mw->Wrap([&](const httplib::Request&, httplib::Response& res, CallContext&) {
    std::lock_guard lock(mu);
    seen = CurrentCallContext() != nullptr && CurrentCallContext()->incoming_is_retry;
    res.status = 200;
  }));
  srv.Start();
  httplib::Client cli = srv.Client();
  const auto served = [&](const httplib::Headers& headers) -> std::optional<bool> {
    {
      std::lock_guard lock(mu);
      seen.reset();
    }
    auto res = cli.Get("/work", headers);
    EXPECT_TRUE(res) << "no answer";
    std::lock_guard lock(mu);
    return seen;
  };
  const std::vector<HostileCount> cases = {
      {"", false},   {"0", false},        {"1", false},
      {"2", true},   {"-1", false},       {"+2", false},
      {" 2", true},  {"2 ", true},        {"99999999999999999999999", false},
      {"2x", false}, {"\xff\xfe", false}, {"\xef\xbc\x92", false}};  // fullwidth two
  for (const HostileCount& c : cases) {
    EXPECT_EQ(served(testkit::With("x-envoy-attempt-count", c.value)), c.retry) << "'" << c.value << "'";
  }
  // Repeated: any copy above 1 makes it a retry.
  EXPECT_EQ(served({{"x-envoy-attempt-count", "1"}, {"x-envoy-attempt-count", "2"}}), true);
  EXPECT_EQ(served({{"x-envoy-attempt-count", "2"}, {"x-envoy-attempt-count", "1"}}), true);
  EXPECT_EQ(served({{"x-envoy-attempt-count", "1"}, {"x-envoy-attempt-count", "0"}}), false);
  // httplib refuses a header line over 8 KiB before any handler runs (400).
  auto huge = cli.Get("/work", testkit::With("x-envoy-attempt-count", std::string(10240, '2')));
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 400);
}

TEST(HttpMeshTest, TheClientAsksItsSidecarNotToRetryOnlyWhenTold) {
  testkit::TestServer srv;
  std::mutex mu;
  std::vector<std::string> limits;  // x-envoy-max-retries of each arrival, "<none>" when absent
  srv.server.Get("/stock", [&](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard lock(mu);
    limits.push_back(req.has_header("x-envoy-max-retries") ? req.get_header_value("x-envoy-max-retries") : "<none>");
    res.status = limits.size() % 2 == 1 ? 503 : 200;  // each call: one failure, then a retry that succeeds
  });
  srv.Start();
  RetryOptions retry{.max_attempts = 2};
  retry.backoff = {.kind = BackoffKind::kConstant, .base = 1ms, .cap = 1ms};
  const PipelineRef pipeline = testkit::RetryPipeline(retry);

  auto asking = HttpClient::Create({.pipeline = pipeline, .ask_sidecar_not_to_retry = true});
  ASSERT_TRUE(asking.ok()) << asking.status().ToString();
  EXPECT_TRUE(asking->Send({.url = srv.Url("/stock")}).ok());
  auto plain = HttpClient::Create({.pipeline = pipeline});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(plain->Send({.url = srv.Url("/stock")}).ok());

  std::lock_guard lock(mu);
  EXPECT_THAT(limits, ElementsAre("0", "0", "<none>", "<none>"));  // every attempt, retries too
}

TEST(HttpMeshTest, AskingTheSidecarNeedsTheChainProtocol) {
  auto c = HttpClient::Create({.pipeline = testkit::Built(PipelineBuilder()),
                               .chain_protocol = false,
                               .ask_sidecar_not_to_retry = true});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), ::testing::HasSubstr("ask_sidecar_not_to_retry: needs chain_protocol"));
}

}  // namespace mesh_test
}  // namespace stormguard::http
