#include "stormguard/config_sources/etcd_source.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace stormguard::config_sources {
namespace {

TEST(EtcdSourceOptionsTest, TheDefaultsWithAKeyAreValid) {
  EXPECT_TRUE((EtcdSourceOptions{.key = "/sg/config"}).Validate().empty());
}

TEST(EtcdSourceOptionsTest, NamesEveryBadOption) {
  EtcdSourceOptions o{.endpoint = "ftp://x/",
                      .key = "",
                      .connect_timeout = Duration::zero(),
                      .request_timeout = std::chrono::hours(1),
                      .coalesce = -std::chrono::milliseconds(1),
                      .stale_after = Duration::zero()};
  o.reconnect.cap = std::chrono::hours(1);
  auto started = EtcdSource::Start(o, [](Result<ConfigUpdate>) {});
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = started.status().message();
  for (const char* field : {"endpoint: must start with http:// or https://", "key: must be 1 to 4096 bytes",
                            "connect_timeout: must be in [1ms, 1min]", "request_timeout: must be in [1ms, 10min]",
                            "coalesce: must be in [0, 1min]", "reconnect.cap: must be at most 10min",
                            "stale_after: must be in [10ms, 24h]"}) {
    EXPECT_NE(m.find(field), std::string::npos) << field << " in " << m;
  }
  EXPECT_FALSE(EtcdSource::Start({.key = "/k"}, nullptr).ok());
  EXPECT_FALSE((EtcdSourceOptions{.endpoint = "http://a b", .key = "/k"}).Validate().empty());
}

// The CLI's tests (tests/tools/hostile_watch_test.cc) cover each refusal.
TEST(EtcdSourceOptionsTest, AnEndpointIsASchemeAHostAndAnOptionalPort) {
  for (const char* ok : {"http://127.0.0.1:2379", "https://etcd.example.com", "http://[::1]:2379", "http://[::1]",
                         "http://etcd-0.etcd_svc:1", "http://h:65535"}) {
    EXPECT_TRUE((EtcdSourceOptions{.endpoint = ok, .key = "/k"}).Validate().empty()) << ok;
  }
  for (const char* bad : {"http://h:0", "http://h:65536", "http://h/", "http://h:2379/v3", "http://", "http://u@h",
                          "http://[::1", "http://h:2379?x", "https:/h"}) {
    EXPECT_FALSE((EtcdSourceOptions{.endpoint = bad, .key = "/k"}).Validate().empty()) << bad;
  }
}

// Each error names the field; the files are checked when the source starts,
// not at its first connection.
TEST(EtcdSourceOptionsTest, TlsAndAuthenticationAreCheckedFieldByField) {
  testkit::TempDir dir;
  const std::string pem = dir.File("a.pem");
  testkit::TempDir::WriteInPlace(pem, "x");
  const EtcdSourceOptions good{.endpoint = "https://h:2379",
                               .key = "/k",
                               .ca_file = pem,
                               .cert_file = pem,
                               .key_file = pem,
                               .user = "app",
                               .password = "pw"};
  EXPECT_TRUE(good.Validate().empty());
  const auto errors = [&](auto change) {
    EtcdSourceOptions o = good;
    change(o);
    const std::vector<std::string> e = o.Validate();
    return e.empty() ? std::string() : e.front();
  };
  EXPECT_EQ(errors([](auto& o) { o.endpoint = "http://h:2379"; }), "ca_file: needs an https:// endpoint");
  EXPECT_EQ(errors([&](auto& o) { o.ca_file = dir.File("none"); }),
            "ca_file: \"" + dir.File("none") + "\" is not a regular file");
  EXPECT_EQ(errors([&](auto& o) { o.cert_file = dir.path(); }),
            "cert_file: \"" + dir.path() + "\" is not a regular file");
  EXPECT_EQ(errors([](auto& o) { o.key_file.clear(); }), "key_file: cert_file and key_file go together");
  EXPECT_EQ(errors([](auto& o) { o.cert_file.clear(); }), "cert_file: cert_file and key_file go together");
  EXPECT_EQ(errors([](auto& o) { o.password.clear(); }), "password: user and password go together");
  EXPECT_EQ(errors([](auto& o) { o.user.clear(); }), "user: user and password go together");
  EXPECT_EQ(errors([](auto& o) { o.user = "a\nb"; }), "user: must be at most 256 bytes, on one line");
  EXPECT_EQ(errors([](auto& o) { o.token_ttl = std::chrono::milliseconds(999); }), "token_ttl: must be in [1s, 24h]");
  // Authentication alone needs no TLS (a loopback etcd).
  EXPECT_TRUE((EtcdSourceOptions{.key = "/k", .user = "app", .password = "pw"}).Validate().empty());
}

}  // namespace
}  // namespace stormguard::config_sources
