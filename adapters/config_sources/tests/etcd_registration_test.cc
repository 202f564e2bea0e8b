// Options of the registration and the discovery: checked before anything
// reaches etcd.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stormguard/config_sources/etcd_discovery.h"
#include "stormguard/config_sources/etcd_registration.h"

namespace stormguard::config_sources::registration_options_test {

using namespace std::chrono_literals;

EtcdRegistrationOptions Good() { return {.etcd = {.key = "/sg/replicas/inventory/"}, .address = "10.0.0.7:8080"}; }

TEST(EtcdRegistrationOptionsTest, TheDefaultsWithAPrefixAndAnAddressAreValid) {
  EXPECT_EQ(Good().Validate(), std::vector<std::string>{});
}

TEST(EtcdRegistrationOptionsTest, EachBadFieldIsNamed) {
  EtcdRegistrationOptions o = Good();
  o.address = "10.0.0.7";
  o.weight = 0;
  o.ttl = 1s;
  o.etcd.endpoint = "ftp://etcd";
  EXPECT_EQ(o.Validate(), (std::vector<std::string>{
                              "etcd.endpoint: must start with http:// or https://",
                              "address: must be host:port with a port in [1, 65535]",
                              "weight: must be in (0, 1e6]",
                              "ttl: must be whole seconds in [2s, 1h]",
                          }));
  o = Good();
  o.ttl = 2500ms;
  EXPECT_EQ(o.Validate(), std::vector<std::string>{"ttl: must be whole seconds in [2s, 1h]"});
  o.ttl = 2h;
  EXPECT_EQ(o.Validate(), std::vector<std::string>{"ttl: must be whole seconds in [2s, 1h]"});
}

TEST(EtcdRegistrationOptionsTest, StartRefusesBadOptionsAndDiscoveryANullSet) {
  EtcdRegistrationOptions o = Good();
  o.address = "";
  const auto registration = EtcdRegistration::Start(o);
  ASSERT_FALSE(registration.ok());
  EXPECT_EQ(registration.status().code(), StatusCode::kInvalidArgument);
  const auto discovery = EtcdDiscovery::Start({.etcd = {.key = "/sg/", .coalesce = 2s}}, nullptr);
  ASSERT_FALSE(discovery.ok());
  EXPECT_NE(discovery.status().message().find("etcd.coalesce: must be at most 500ms"), std::string::npos);
  EXPECT_NE(discovery.status().message().find("set: must not be null"), std::string::npos);
}

}  // namespace stormguard::config_sources::registration_options_test
