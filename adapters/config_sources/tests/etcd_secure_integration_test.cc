// EtcdSource against a real etcd that knows who its clients are: one
// serving https with client-certificate auth (certificates made by the test
// with the openssl CLI), and one with etcd authentication on and tokens
// that live a second, so renewals happen within the test. Each refusal
// reaches a registry through ReloadInto: reported with its cause, the
// last good configuration left in force.
#include <gtest/gtest.h>

#include "etcd_process.h"
#include "eventually.h"
#include "sink_recorder.h"
#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/reload_into.h"
#include "temp_dir.h"
#include "test_certificates.h"

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;
using testkit::Doc;
using testkit::EtcdProcess;
using testkit::Eventually;
using testkit::SinkRecorder;
using Clock = std::chrono::steady_clock;

constexpr const char* kKey = "/sg/config";

// The first failure the sink saw from entry `from` on, waiting at most 5 s; "" if none.
std::string FailureFrom(SinkRecorder& recorder, std::size_t from = 0) {
  std::string failure;
  recorder.WaitFor([&](const auto& es) {
    for (std::size_t i = from; i < es.size(); ++i) {
      if (!es[i].update.ok()) return !(failure = es[i].update.status().message()).empty();
    }
    return false;
  });
  return failure;
}

// A source feeding both a recorder (what was said) and a registry (what is in force).
class SecureEtcdTest : public ::testing::Test {
 protected:
  std::unique_ptr<EtcdSource> StartSource(EtcdSourceOptions o) {
    o.endpoint = etcd_.endpoint();
    o.key = kKey;
    o.seed = 7;
    o.reconnect.base = milliseconds(20);
    o.reconnect.cap = milliseconds(200);
    auto source = EtcdSource::Start(std::move(o), [this, record = recorder_.sink(),
                                                   apply = ReloadInto(registry_, "etcd:/sg/config")](auto u) {
      apply(u);  // first, so a test that saw the update sees the registry's answer too
      record(std::move(u));
    });
    EXPECT_TRUE(source.ok()) << source.status().ToString();
    return source.ok() ? std::move(*source) : nullptr;
  }

  testkit::TempDir dir_;
  EtcdProcess etcd_;
  SinkRecorder recorder_;
  config::Registry registry_;
};

class EtcdTlsTest : public SecureEtcdTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testkit::MakeTestCertificates(dir_.path(), certs_)) << "openssl failed (scripts/install-deps.sh)";
    etcd_.set_tls({certs_.server_cert, certs_.server_key, certs_.ca, Client()});
    ASSERT_TRUE(etcd_.Start()) << "etcd did not start with TLS";
  }
  EtcdIdentity Client() const { return {certs_.ca, certs_.client_cert, certs_.client_key, ""}; }
  EtcdSourceOptions Trusting() const {
    return {.ca_file = certs_.ca, .cert_file = certs_.client_cert, .key_file = certs_.client_key};
  }

  testkit::TestCertificates certs_;
};

TEST_F(EtcdTlsTest, DeliversOverTlsWithAClientCertificate) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  auto source = StartSource(Trusting());
  ASSERT_TRUE(recorder_.WaitForText(Doc(1)));
  ASSERT_GT(etcd_.Put(kKey, Doc(2)), 0);
  ASSERT_TRUE(recorder_.WaitForText(Doc(2)));
  EXPECT_EQ(registry_.version(), 2U);
}

// The source's CA did not sign etcd's certificate: a server it cannot
// tell from an impostor.
TEST_F(EtcdTlsTest, AServerCertificateFromAnotherCaIsRefused) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  EtcdSourceOptions o = Trusting();
  o.ca_file = certs_.other_ca;
  auto source = StartSource(o);
  const std::string failure = FailureFrom(recorder_);
  EXPECT_NE(failure.find("etcd:/sg/config: etcd at " + etcd_.endpoint() +
                         "/v3/kv/range: TLS: etcd's certificate is not trusted ("),
            std::string::npos)
      << failure;
  EXPECT_TRUE(registry_.on_defaults());
  EXPECT_EQ(source->stats().deliveries, 0U);
}

TEST_F(EtcdTlsTest, AClientCertificateEtcdDoesNotTrustIsRefused) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  EtcdSourceOptions o = Trusting();
  o.cert_file = certs_.foreign_cert;
  o.key_file = certs_.foreign_key;
  auto source = StartSource(o);
  const std::string failure = FailureFrom(recorder_);
  // TLS 1.3: etcd's alert, or its reset while the request was still being sent.
  EXPECT_TRUE(failure.find("TLS: etcd refused our client certificate (") != std::string::npos ||
              failure.find("TLS: etcd closed the connection right after the handshake, as it does when it refuses "
                           "our client certificate (") != std::string::npos)
      << failure;
  EXPECT_TRUE(registry_.on_defaults());
}

// etcd comes back with a certificate the source's CA did not sign (an
// impostor, to the source): refused, said with its cause, and the
// configuration delivered before stays in force.
TEST_F(EtcdTlsTest, AnUntrustedCertificateAfterARestartKeepsTheLastGoodConfig) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  auto source = StartSource(Trusting());
  ASSERT_TRUE(recorder_.WaitForText(Doc(1)));
  ASSERT_TRUE(Eventually([&] { return source->stats().watches == 1; }));
  etcd_.Kill();
  etcd_.set_tls({certs_.impostor_cert,
                 certs_.impostor_key,
                 certs_.both_cas,
                 {certs_.other_ca, certs_.client_cert, certs_.client_key, ""}});
  ASSERT_TRUE(etcd_.Start());
  ASSERT_GT(etcd_.Put(kKey, Doc(2)), 0);
  ASSERT_TRUE(recorder_.WaitFor([](const auto& es) {
    return !es.back().update.ok() &&
           es.back().update.status().message().find("TLS: etcd's certificate is not trusted") != std::string::npos;
  })) << recorder_.entries().back().update.status().message();
  EXPECT_FALSE(recorder_.WaitForText(Doc(2), milliseconds(300)));
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_GE(registry_.Stats().rejected, 1U);
}

class EtcdAuthTest : public SecureEtcdTest {
 protected:
  void SetUp() override {
    etcd_.set_auth_token_ttl(1);
    ASSERT_TRUE(etcd_.Start()) << "etcd did not start";
    ASSERT_TRUE(etcd_.EnableAuth("app", "app-secret", "/sg/"));
  }
  // The source is told etcd's TTL: a renewal every half second.
  static EtcdSourceOptions AsApp(std::string password = "app-secret") {
    return {.user = "app", .password = std::move(password), .token_ttl = std::chrono::seconds(1)};
  }
};

// The stream opened with the first token keeps delivering while the token
// is renewed, well past the lives of the tokens before.
TEST_F(EtcdAuthTest, DeliversAcrossSeveralTokenLifetimes) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  auto source = StartSource(AsApp());
  ASSERT_TRUE(recorder_.WaitForText(Doc(1)));
  const auto start = Clock::now();
  ASSERT_TRUE(Eventually([&] { return source->stats().authentications >= 7; }, milliseconds(10000)));
  EXPECT_GE(Clock::now() - start, std::chrono::seconds(3) - milliseconds(600));  // three TTLs, less the first half
  ASSERT_GT(etcd_.Put(kKey, Doc(2)), 0);
  ASSERT_TRUE(recorder_.WaitForText(Doc(2)));
  const EtcdSourceStats stats = source->stats();
  EXPECT_EQ(stats.watches, 1U);  // the same stream throughout
  EXPECT_EQ(stats.failures, 0U);
  EXPECT_EQ(registry_.version(), 2U);
}

// etcd drops a user's tokens when the password changes (here changed and
// changed back, as a botched rotation would). The watch reopened after an
// outage with the dropped token is refused as an invalid token, and the
// source authenticates again at once instead of reporting a failure.
// (A restart alone would not do: etcd replays the authentications in its
// log, so its simple tokens outlive it.)
TEST_F(EtcdAuthTest, ATokenEtcdDroppedIsReplacedAtOnce) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  EtcdSourceOptions o = AsApp();
  o.token_ttl = std::chrono::hours(1);  // so no renewal comes first
  auto source = StartSource(o);
  ASSERT_TRUE(recorder_.WaitForText(Doc(1)));
  ASSERT_TRUE(Eventually([&] { return source->stats().watches == 1; }));
  ASSERT_TRUE(etcd_.ChangePassword("app", "rotated"));
  ASSERT_TRUE(etcd_.ChangePassword("app", "app-secret"));
  etcd_.Kill();
  ASSERT_TRUE(etcd_.Start());
  ASSERT_GT(etcd_.Put(kKey, Doc(2)), 0);
  ASSERT_TRUE(recorder_.WaitForText(Doc(2)));
  EXPECT_EQ(source->stats().authentications, 2U);
  for (const auto& e : recorder_.entries()) {  // the outage only
    if (!e.update.ok()) {
      EXPECT_EQ(e.update.status().code(), StatusCode::kUnavailable) << e.update.status().message();
    }
  }
}

TEST_F(EtcdAuthTest, AWrongPasswordIsRefusedWithItsCause) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  auto source = StartSource(AsApp("not-the-password"));
  const std::string failure = FailureFrom(recorder_);
  EXPECT_EQ(failure,
            "etcd:/sg/config: etcd authentication as user \"app\" failed: etcdserver: authentication failed, "
            "invalid user ID or password");
  EXPECT_EQ(recorder_.entries()[0].update.status().code(), StatusCode::kUnauthenticated);
  EXPECT_TRUE(registry_.on_defaults());
}

// The password changes under a running source: its next renewal is
// refused, reported with etcd's reason, and the stream is closed, so
// nothing more is applied and the last good configuration stays.
TEST_F(EtcdAuthTest, ATokenThatCannotBeRenewedIsReportedAndTheLastGoodStays) {
  ASSERT_GT(etcd_.Put(kKey, Doc(1)), 0);
  auto source = StartSource(AsApp());
  ASSERT_TRUE(recorder_.WaitForText(Doc(1)));
  const std::size_t before = recorder_.entries().size();
  ASSERT_TRUE(etcd_.ChangePassword("app", "rotated"));
  const std::string failure = FailureFrom(recorder_, before);
  EXPECT_NE(failure.find("etcd authentication as user \"app\" failed: etcdserver: authentication failed"),
            std::string::npos)
      << failure;
  ASSERT_GT(etcd_.Put(kKey, Doc(2)), 0);
  EXPECT_FALSE(recorder_.WaitForText(Doc(2), milliseconds(300)));
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_GE(registry_.Stats().rejected, 1U);
}

}  // namespace
}  // namespace stormguard::config_sources
