#include "replica_record.h"

#include <gtest/gtest.h>

#include <string>

#include "etcd_codec.h"

namespace stormguard::config_sources::replica_record_test {

TEST(ReplicaRecordTest, ARecordReadsBackAsItsEndpoint) {
  const EndpointSpec e{"10.0.0.7:8080", 2.5};
  const Result<EndpointSpec> back = ParseReplicaRecord(e.address, ReplicaRecord(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
  const Result<EndpointSpec> unweighted = ParseReplicaRecord("[::1]:80", R"({"address": "[::1]:80"})");
  ASSERT_TRUE(unweighted.ok()) << unweighted.status().ToString();
  EXPECT_EQ(unweighted->weight, 1.0);
}

TEST(ReplicaRecordTest, EachBrokenRecordSaysWhatIsWrong) {
  const struct {
    std::string address, value, reason;
  } cases[] = {
      {"10.0.0.7:80", "10.0.0.7:80", "the value is not a JSON object"},
      {"10.0.0.7:80", "[1, 2]", "the value is not a JSON object"},
      {"10.0.0.7:80", R"({"address": "10.0.0.8:80"})", "the value's \"address\" is not the key's (10.0.0.7:80)"},
      {"10.0.0.7:80", R"({"weight": 1})", "the value's \"address\" is not the key's (10.0.0.7:80)"},
      {"10.0.0.7:80", R"({"address": "10.0.0.7:80", "weight": "1"})", "\"weight\" is not a number"},
      {"10.0.0.7:80", R"({"address": "10.0.0.7:80", "weight": 0})", "weight: must be in (0, 1e6]"},
      {"10.0.0.7:80", R"({"address": "10.0.0.7:80", "weight": 1e7})", "weight: must be in (0, 1e6]"},
      {"10.0.0.7", R"({"address": "10.0.0.7"})", "the key's address: must be host:port with a port in [1, 65535]"},
      {"10.0.0.7:0", R"({"address": "10.0.0.7:0"})", "the key's address: must be host:port with a port in [1, 65535]"},
      {"a b:80", R"({"address": "a b:80"})", "the key's address: must be 1-261 printable characters, no spaces"},
      {"10.0.0.7:80", std::string(4097, ' '), "the value is 4097 bytes, more than 4096"},
  };
  for (const auto& c : cases) {
    const Result<EndpointSpec> r = ParseReplicaRecord(c.address, c.value);
    ASSERT_FALSE(r.ok()) << c.value;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), c.reason) << c.value;
  }
}

TEST(ReplicaRecordTest, LeaseMessagesAreTheGatewaysJson) {
  EXPECT_EQ(LeaseGrantRequest(10), R"({"TTL":"10"})");
  EXPECT_EQ(LeaseIdRequest(7587), R"({"ID":"7587"})");
  EXPECT_EQ(PutRequest("k", "v", 7587), R"({"key":"aw==","lease":"7587","value":"dg=="})");
  const Result<LeaseGrant> grant = ParseLeaseGrantReply(R"({"header":{"revision":"1"},"ID":"7587","TTL":"10"})");
  ASSERT_TRUE(grant.ok());
  EXPECT_EQ(grant->id, 7587);
  EXPECT_EQ(grant->ttl_seconds, 10);
  EXPECT_FALSE(ParseLeaseGrantReply(R"({"header":{"revision":"1"}})").ok());
  EXPECT_EQ(ParseKeepAliveReply(R"({"result":{"ID":"7587","TTL":"9"}})"
                                "\n")
                .value(),
            9);
  EXPECT_EQ(ParseKeepAliveReply(R"({"result":{"ID":"7587"}})").value(), 0);  // etcd has no such lease
  const Result<std::int64_t> error = ParseKeepAliveReply(R"({"error":{"code":14,"message":"etcdserver: no leader"}})");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.status().code(), StatusCode::kUnavailable);
}

}  // namespace stormguard::config_sources::replica_record_test
