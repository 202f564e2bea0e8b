#include "etcd_codec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace stormguard::config_sources {
namespace {

TEST(EtcdCodecTest, Base64RoundTripsEveryByteAndEveryPadding) {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (std::size_t n : {0U, 1U, 2U, 3U, 4U, 255U, 256U}) {
    const std::string bytes = all.substr(0, n);
    const Result<std::string> back = Base64Decode(Base64Encode(bytes));
    ASSERT_TRUE(back.ok()) << n;
    EXPECT_EQ(*back, bytes);
  }
  EXPECT_EQ(Base64Encode("/sg/config"), "L3NnL2NvbmZpZw==");  // as etcd writes it
}

TEST(EtcdCodecTest, Base64RefusesWhatIsNotPaddedStandardBase64) {
  for (const char* bad : {"abc", "ab=c", "a=bc", "====", "ab-_", "ab\ncd"}) {
    EXPECT_FALSE(Base64Decode(bad).ok()) << bad;
  }
}

TEST(EtcdCodecTest, PrefixEndIsTheFirstKeyPastThePrefix) {
  EXPECT_EQ(PrefixEnd("/sg/"), "/sg0");
  EXPECT_EQ(PrefixEnd("a\xff"), "b");
  EXPECT_EQ(PrefixEnd("\xff\xff"), std::string(1, '\0'));
}

TEST(EtcdCodecTest, RequestsCarryBase64KeysAndInt64AsStrings) {
  const auto range = nlohmann::json::parse(RangeRequest("/sg/", "/sg0", 10001));
  EXPECT_EQ(range["key"], Base64Encode("/sg/"));
  EXPECT_EQ(range["range_end"], Base64Encode("/sg0"));
  EXPECT_EQ(range["limit"], "10001");
  EXPECT_FALSE(nlohmann::json::parse(RangeRequest("/k", "", 0)).contains("range_end"));
  const auto watch = nlohmann::json::parse(WatchRequest("/k", "", 42))["create_request"];
  EXPECT_EQ(watch["start_revision"], "42");
  EXPECT_EQ(watch["progress_notify"], true);
  EXPECT_FALSE(watch.contains("range_end"));
}

TEST(EtcdCodecTest, ReadsARangeAnswer) {
  const Result<RangeReply> r =
      ParseRangeReply(R"({"header":{"cluster_id":"1","revision":"9"},)"
                      R"("kvs":[{"key":"L3NnL2E=","mod_revision":"7","value":"e30="}],"count":"1"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->revision, 9);
  ASSERT_EQ(r->kvs.size(), 1U);
  EXPECT_EQ(r->kvs[0].key, "/sg/a");
  EXPECT_EQ(r->kvs[0].value, "{}");
  EXPECT_EQ(r->kvs[0].mod_revision, 7);
  EXPECT_FALSE(r->more);
  const Result<RangeReply> empty = ParseRangeReply(R"({"header":{"revision":"3"}})");  // proto3: no kvs
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->kvs.empty());
}

TEST(EtcdCodecTest, RefusesRevisionsOutOfRangeAndMalformedAnswers) {
  for (const char* bad :
       {R"({"header":{"revision":"-1"}})", R"({"header":{"revision":"9223372036854775807"}})",
        R"({"header":{"revision":"99999999999999999999"}})", R"({"header":{"revision":"1x"}})",
        R"({"header":{"revision":1.5}})", R"({"header":{}})", R"([1])", "not json",
        R"({"header":{"revision":"2"},"kvs":[{"key":"***"}]})", R"({"header":{"revision":"2"},"kvs":{}})"}) {
    EXPECT_FALSE(ParseRangeReply(bad).ok()) << bad;
  }
  EXPECT_TRUE(ParseRangeReply(R"({"header":{"revision":"9223372036854775806"}})").ok());
}

TEST(EtcdCodecTest, ReadsWatchLines) {
  const auto created = ParseWatchLine(R"({"result":{"header":{"revision":"2"},"created":true}})");
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(created->created);
  EXPECT_FALSE(created->IsProgressNotify());

  const auto events = ParseWatchLine(
      R"({"result":{"header":{"revision":"5"},"events":[{"kv":{"key":"YQ==","mod_revision":"4","value":"Yg=="}},)"
      R"({"type":"DELETE","kv":{"key":"Yw==","mod_revision":"5"}}]}})");
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->events.size(), 2U);
  EXPECT_FALSE(events->events[0].deleted);  // PUT is the default: no "type"
  EXPECT_EQ(events->events[0].kv.value, "b");
  EXPECT_TRUE(events->events[1].deleted);
  EXPECT_EQ(events->events[1].kv.mod_revision, 5);

  const auto progress = ParseWatchLine(R"({"result":{"header":{"revision":"8"}}})");
  ASSERT_TRUE(progress.ok());
  EXPECT_TRUE(progress->IsProgressNotify());

  // A compaction cancel has no header revision: never resume from it.
  const auto cancel = ParseWatchLine(R"({"result":{"header":{},"canceled":true,"compact_revision":"4"}})");
  ASSERT_TRUE(cancel.ok());
  EXPECT_TRUE(cancel->canceled);
  EXPECT_EQ(cancel->compact_revision, 4);
  EXPECT_FALSE(cancel->IsProgressNotify());
}

TEST(EtcdCodecTest, AnErrorLineOrAnErrorAnswerKeepsEtcdsCode) {
  const auto line = ParseWatchLine(R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader"}})");
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(line.status().message().find("no leader"), std::string::npos);
  const Status compacted =
      ParseErrorReply(400, R"({"error":"etcdserver: mvcc: required revision has been compacted","code":11})");
  EXPECT_EQ(compacted.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(ParseErrorReply(502, "<html>").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ParseErrorReply(502, "<html>").message(), "etcd answered HTTP 502");
  EXPECT_EQ(ParseErrorReply(400, "CommonName of client ... not used as expected\n").message(),
            "etcd answered HTTP 400: CommonName of client ... not used as expected");
  EXPECT_EQ(ParseErrorReply(400, "a\x01b").message(), "etcd answered HTTP 400");
  EXPECT_EQ(ParseErrorReply(500, R"({"code":99})").code(), StatusCode::kUnknown);
  EXPECT_FALSE(ParseWatchLine(R"({"result":{"events":[{"type":"PATCH","kv":{}}]}})").ok());
}

// The token goes into the Authorization header as it is: anything that
// could end the header or add another is refused.
TEST(EtcdCodecTest, AnAuthenticateAnswerGivesAPrintableToken) {
  const auto request = nlohmann::json::parse(AuthenticateRequest("app", "p\"w"));
  EXPECT_EQ(request["name"], "app");
  EXPECT_EQ(request["password"], "p\"w");
  const Result<std::string> token = ParseAuthenticateReply(R"({"header":{"revision":"1"},"token":"abcDEF.12"})");
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(*token, "abcDEF.12");
  for (const char* bad : {R"({"token":"a\r\nX-Evil: 1"})", R"({"token":"a b"})", R"({"token":""})", R"({"token":7})",
                          R"({"header":{}})", "[]"}) {
    EXPECT_FALSE(ParseAuthenticateReply(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace stormguard::config_sources
