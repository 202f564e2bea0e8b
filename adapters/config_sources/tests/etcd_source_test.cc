#include "stormguard/config_sources/etcd_source.h"

#include <gtest/gtest.h>

namespace stormguard::config_sources {
namespace {

TEST(EtcdSourceOptionsTest, TheDefaultsWithAKeyAreValid) {
  EXPECT_TRUE((EtcdSourceOptions{.key = "/sg/config"}).Validate().empty());
}

TEST(EtcdSourceOptionsTest, NamesEveryBadOption) {
  EtcdSourceOptions o{.endpoint = "ftp://x/", .key = "", .connect_timeout = Duration::zero(),
                      .request_timeout = std::chrono::hours(1), .coalesce = -std::chrono::milliseconds(1)};
  o.reconnect.cap = std::chrono::hours(1);
  auto started = EtcdSource::Start(o, [](Result<ConfigUpdate>) {});
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.status().code(), StatusCode::kInvalidArgument);
  const std::string& m = started.status().message();
  for (const char* field : {"endpoint: must be an http:// or https:// URL", "endpoint: must not end with '/'",
                            "key: must be 1 to 4096 bytes", "connect_timeout: must be in [1ms, 1min]",
                            "request_timeout: must be in [1ms, 10min]", "coalesce: must be in [0, 1min]",
                            "reconnect.cap: must be at most 10min"}) {
    EXPECT_NE(m.find(field), std::string::npos) << field << " in " << m;
  }
  EXPECT_FALSE(EtcdSource::Start({.key = "/k"}, nullptr).ok());
  EXPECT_FALSE((EtcdSourceOptions{.endpoint = "http://a b", .key = "/k"}).Validate().empty());
}

}  // namespace
}  // namespace stormguard::config_sources
