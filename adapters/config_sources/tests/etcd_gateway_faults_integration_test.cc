// EtcdSource against a fake gateway on loopback (cpp-httplib), for what a
// real etcd will not readily do: refuse, cancel a watch for a reason, send
// an error line, a line over the bound, or more keys than the bounds; and
// the token's renewal schedule, on a ManualClock.
#include <httplib.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "etcd_codec.h"
#include "etcd_token.h"
#include "sink_recorder.h"
#include "stormguard/config/config_json.h"
#include "stormguard/config_sources/etcd_source.h"

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;
using testkit::SinkRecorder;

class FakeGateway {
 public:
  FakeGateway() {
    server_.Post("/v3/kv/range", [this](const httplib::Request&, httplib::Response& res) {
      ranges_.fetch_add(1);
      res.status = range_status;
      res.set_content(range_body, "application/json");
    });
    server_.Post("/v3/auth/authenticate", [this](const httplib::Request&, httplib::Response& res) {
      const int n = authentications_.fetch_add(1) + 1;
      res.status = authenticate_status;
      res.set_content(authenticate_status == 200 ? R"({"token":"t)" + std::to_string(n) + R"("})"
                                                 : std::string(R"({"error":"etcdserver: authentication failed, )"
                                                               R"(invalid user ID or password","code":3})"),
                      "application/json");
    });
    server_.Post("/v3/watch", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("application/json", [this](std::size_t, httplib::DataSink& sink) {
        for (const std::string& line : watch_lines) sink.write(line.data(), line.size());
        if (break_stream) return false;  // closes the connection mid-answer
        sink.done();
        return true;
      });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 100000 && !server_.is_running(); ++i) std::this_thread::yield();
  }
  ~FakeGateway() {
    server_.stop();
    thread_.join();
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int ranges() const { return ranges_.load(); }
  int authentications() const { return authentications_.load(); }

  // Set before the source starts.
  int range_status = 200;
  std::string range_body;
  std::vector<std::string> watch_lines;
  bool break_stream = false;                  // after watch_lines, instead of ending the answer
  std::atomic<int> authenticate_status{200};  // else etcd's answer to a wrong password

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> ranges_{0};
  std::atomic<int> authentications_{0};
};

std::string RangeOf(std::int64_t revision, const std::vector<std::pair<std::string, std::string>>& kvs) {
  std::string out = R"({"header":{"revision":")" + std::to_string(revision) + R"("},"kvs":[)";
  for (const auto& [k, v] : kvs) {
    if (out.back() != '[') out += ",";
    out += R"({"key":")" + Base64Encode(k) + R"(","mod_revision":"2","value":")" + Base64Encode(v) + R"("})";
  }
  return out + "]}";
}
const std::string kCreated = R"({"result":{"header":{"revision":"5"},"created":true}})"
                             "\n";

// One attempt per test: the next would come only after 10 s.
EtcdSourceOptions Options(const FakeGateway& g, const std::string& key, bool prefix = false) {
  EtcdSourceOptions o{.endpoint = g.endpoint(), .key = key, .prefix = prefix};
  o.reconnect = {.kind = BackoffKind::kConstant, .base = std::chrono::seconds(10), .cap = std::chrono::seconds(10)};
  return o;
}

bool HasError(const std::vector<SinkRecorder::Entry>& es, StatusCode code, const std::string& part) {
  for (const auto& e : es) {
    if (!e.update.ok() && e.update.status().code() == code &&
        e.update.status().message().find(part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// (A blank line, as a proxy may send to keep the stream alive, is skipped.)
TEST(EtcdGatewayFaultsTest, AWatchCanceledForAReasonIsReported) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {kCreated, "\r\n",
                   R"({"result":{"header":{},"canceled":true,"cancel_reason":"etcdserver: permission denied"}})"
                   "\n"};
  SinkRecorder recorder;
  auto source = EtcdSource::Start(Options(g, "/k"), recorder.sink()).value();
  EXPECT_TRUE(recorder.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kFailedPrecondition,
                    "etcd:/k: etcd canceled the watch: etcdserver: permission denied");
  }));
  EXPECT_TRUE(recorder.entries()[0].update.ok());  // the document came first
}

// etcd refuses to open a watch by answering it created and canceled at
// once, its gRPC status in the reason. That is no accepted watch: not
// counted, and, the reason being the same each time, reported once
// however often the source tries again.
TEST(EtcdGatewayFaultsTest, AWatchRefusedAtItsCreationIsNoWatchAndIsReportedOnce) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {R"({"result":{"header":{"revision":"5"},"watch_id":"-1","created":true,"canceled":true,)"
                   R"("cancel_reason":"rpc error: code = PermissionDenied desc = etcdserver: permission denied"}})"
                   "\n"};
  SinkRecorder recorder;
  EtcdSourceOptions o = Options(g, "/k");
  o.reconnect = {.kind = BackoffKind::kConstant, .base = milliseconds(5), .cap = milliseconds(5)};
  auto source = EtcdSource::Start(o, recorder.sink()).value();
  for (int i = 0; i < 1000 && source->stats().reconnects < 5; ++i) std::this_thread::sleep_for(milliseconds(5));
  ASSERT_GE(source->stats().reconnects, 5U);
  source->Stop();
  const auto entries = recorder.entries();
  ASSERT_EQ(entries.size(), 2U);  // the document, then the refusal once
  EXPECT_EQ(entries[1].update.status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(entries[1].update.status().message(),
            "etcd:/k: etcd canceled the watch: rpc error: code = PermissionDenied desc = etcdserver: "
            "permission denied");
  EXPECT_EQ(source->stats().watches, 0U);
}

// The token's schedule on a ManualClock: kept until half its TTL, then
// renewed; replaced at once after Forget; a refusal is said as one, and
// leaves no token to forget, so the caller does not try again.
TEST(EtcdGatewayFaultsTest, ATokenIsRenewedAtHalfItsTtlAndAfterForget) {
  FakeGateway g;
  ManualClock clock;
  EtcdSourceOptions o = Options(g, "/k");
  o.user = "app";
  o.password = "pw";
  o.token_ttl = std::chrono::seconds(10);
  EtcdToken token(o, clock);
  EXPECT_EQ(token.Get({}).value(), "t1");
  clock.Advance(std::chrono::milliseconds(4999));
  EXPECT_EQ(token.Get({}).value(), "t1");
  EXPECT_EQ(token.renew_at(), clock.Now() + std::chrono::milliseconds(1));
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_EQ(token.Get({}).value(), "t2");
  EXPECT_TRUE(token.Forget());
  EXPECT_EQ(token.Get({}).value(), "t3");
  EXPECT_EQ(token.authentications(), 3U);
  g.authenticate_status = 400;
  EXPECT_TRUE(token.Forget());
  const Result<std::string> refused = token.Get({});
  EXPECT_EQ(refused.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(refused.status().message(),
            "etcd authentication as user \"app\" failed: etcdserver: authentication failed, invalid user ID or "
            "password");
  EXPECT_FALSE(token.Forget());
  EXPECT_EQ(g.authentications(), 4);
  EXPECT_EQ(EtcdToken(Options(g, "/k"), clock).Get({}).value(), "");  // no user: no token, no question
  EXPECT_EQ(g.authentications(), 4);
}

// A stream cut mid-answer, and one closed cleanly, are said in our words,
// not curl's ("Transferred a partial file").
TEST(EtcdGatewayFaultsTest, AnEndedStreamSaysWhy) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {kCreated};
  g.break_stream = true;
  SinkRecorder recorder;
  auto broken = EtcdSource::Start(Options(g, "/k"), recorder.sink()).value();
  EXPECT_TRUE(recorder.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kUnavailable,
                    "etcd:/k: etcd watch stream ended: the connection closed in the middle of an answer");
  }));
  FakeGateway clean;
  clean.range_body = g.range_body;
  clean.watch_lines = {kCreated};
  SinkRecorder closed;
  auto ended = EtcdSource::Start(Options(clean, "/k"), closed.sink()).value();
  EXPECT_TRUE(closed.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kUnavailable, "etcd:/k: etcd watch stream ended: etcd closed it");
  }));
  for (const auto& e : recorder.entries()) {
    if (!e.update.ok()) {
      EXPECT_EQ(e.update.status().message().find("Transferred"), std::string::npos);
    }
  }
}

TEST(EtcdGatewayFaultsTest, AnErrorLineAndARefusedRangeKeepEtcdsCode) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {R"({"error":{"grpc_code":7,"http_code":403,"message":"permission denied"}})"
                   "\n"};
  SinkRecorder recorder;
  auto source = EtcdSource::Start(Options(g, "/k"), recorder.sink()).value();
  EXPECT_TRUE(recorder.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kPermissionDenied, "permission denied");
  }));

  FakeGateway refusing;
  refusing.range_status = 403;
  refusing.range_body = R"({"error":"etcdserver: user name is empty","code":7})";
  SinkRecorder refused;
  auto other = EtcdSource::Start(Options(refusing, "/k"), refused.sink()).value();
  EXPECT_TRUE(refused.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kPermissionDenied, "user name is empty");
  }));
}

TEST(EtcdGatewayFaultsTest, AWatchLineOverTheBoundEndsTheStream) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {kCreated, std::string(std::size_t{8} << 20, ' ') + "x"};  // 8 MiB + 1, no newline yet
  SinkRecorder recorder;
  auto source = EtcdSource::Start(Options(g, "/k"), recorder.sink()).value();
  EXPECT_TRUE(recorder.WaitFor([](const auto& es) {
    return HasError(es, StatusCode::kResourceExhausted, "a watch line is longer than 8388608 bytes");
  }));
}

// A watch that adds keys past the bounds cannot be followed: the source
// says so, forgets, and reads everything again, delivering nothing from
// its emptied view in between.
TEST(EtcdGatewayFaultsTest, PassingTheBoundsInAWatchReadsAgain) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/p/a", "{}"}});
  std::string events = R"({"result":{"header":{"revision":"7"},"events":[)";
  for (std::size_t i = 0; i < config::kMaxDestinations; ++i) {
    if (i > 0) events += ",";
    events +=
        R"({"kv":{"key":")" + Base64Encode("/p/k" + std::to_string(i)) + R"(","mod_revision":"7","value":"e30="}})";
  }
  // A change held back by the coalescing interval, then the overflow.
  const std::string put_b = R"({"result":{"header":{"revision":"6"},"events":[{"kv":{"key":")" + Base64Encode("/p/b") +
                            R"(","mod_revision":"6","value":"e30="}}]}})"
                            "\n";
  g.watch_lines = {kCreated, put_b, events + "]}}\n"};
  SinkRecorder recorder;
  auto options = Options(g, "/p/", /*prefix=*/true);
  options.reconnect.base = options.reconnect.cap = milliseconds(1);
  auto source = EtcdSource::Start(options, recorder.sink()).value();
  ASSERT_TRUE(recorder.WaitFor([&](const auto&) { return g.ranges() >= 2; }));
  source->Stop();
  const auto entries = recorder.entries();
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries[0].update->text, R"({"destinations": {"a": {}}})");
  EXPECT_TRUE(HasError(entries, StatusCode::kResourceExhausted, "passed their bounds"));
  EXPECT_FALSE(HasError(entries, StatusCode::kNotFound, ""));
}

}  // namespace
}  // namespace stormguard::config_sources

namespace stormguard::config_sources {
namespace {

// A compaction makes the source read everything again at once, but a peer
// that cancels every watch as compacted must not get a tight loop of reads.
TEST(EtcdGatewayFaultsTest, CompactionsInARowBackOff) {
  FakeGateway g;
  g.range_body = RangeOf(5, {{"/k", "{}"}});
  g.watch_lines = {kCreated, R"({"result":{"header":{},"canceled":true,"compact_revision":"9"}})"
                             "\n"};
  SinkRecorder recorder;
  auto source = EtcdSource::Start(Options(g, "/k"), recorder.sink()).value();
  ASSERT_TRUE(recorder.WaitFor([](const auto& es) { return HasError(es, StatusCode::kOutOfRange, "was compacted"); }));
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(g.ranges(), 2);  // the first read, one re-read, then the 10 s backoff
  EXPECT_EQ(source->stats().compactions, 2U);
}

}  // namespace
}  // namespace stormguard::config_sources
