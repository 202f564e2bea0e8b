#include "etcd_view.h"

#include <gtest/gtest.h>

#include "stormguard/config/config_json.h"

namespace stormguard::config_sources {
namespace {

RangeReply Range(std::int64_t revision, std::vector<KeyValue> kvs) { return {revision, std::move(kvs), false}; }
WatchEvent PutEvent(std::string key, std::string value, std::int64_t rev) {
  return {false, {std::move(key), std::move(value), rev}};
}
WatchEvent DeleteEvent(std::string key, std::int64_t rev) { return {true, {std::move(key), "", rev}}; }
WatchReply Events(std::int64_t header, std::vector<WatchEvent> events) {
  WatchReply r;
  r.revision = header;
  r.events = std::move(events);
  return r;
}

TEST(EtcdViewTest, OneKeyIsTheDocumentAsWritten) {
  EtcdView view("/sg/config", false);
  EXPECT_EQ(view.Document().status().code(), StatusCode::kNotFound);
  ASSERT_EQ(view.Reset(Range(5, {{"/sg/config", "not json {", 4}})), EtcdView::kChanged);
  EXPECT_EQ(*view.Document(), "not json {");  // judging it is the receiver's job
  EXPECT_EQ(view.revision(), 5);
  EXPECT_EQ(view.next_revision(), 6);
  ASSERT_EQ(view.Apply(Events(7, {DeleteEvent("/sg/config", 7)})), EtcdView::kChanged);
  EXPECT_EQ(view.Document().status().code(), StatusCode::kNotFound);
}

TEST(EtcdViewTest, APrefixAssemblesDestinationsInKeyOrder) {
  EtcdView view("/sg/d/", true);
  view.Reset(Range(3, {{"/sg/d/b", R"({"bulkhead": {}})", 2}, {"/sg/d/a\"x", "{}", 3}}));
  const Result<std::string> doc = view.Document();
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(*doc, R"({"destinations": {"a\"x": {}, "b": {"bulkhead": {}}}})");
}

TEST(EtcdViewTest, AValueThatIsNotOneJsonValueCannotReachItsNeighbours) {
  EtcdView view("/sg/d/", true);
  // Spliced as text, this would add a destination named "evil".
  view.Reset(Range(3, {{"/sg/d/a", R"({}, "evil": {"retry_budget": {}})", 3}}));
  const Result<std::string> doc = view.Document();
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(doc.status().message().find("/sg/d/a"), std::string::npos);
}

TEST(EtcdViewTest, TracksTheRevisionToResumeFrom) {
  EtcdView view("/sg/d/", true);
  view.Reset(Range(10, {}));
  EXPECT_EQ(view.next_revision(), 11);
  // One transaction: two events of one revision, applied together.
  EXPECT_EQ(view.Apply(Events(12, {PutEvent("/sg/d/a", "{}", 12), PutEvent("/sg/d/b", "{}", 12)})), EtcdView::kChanged);
  EXPECT_EQ(view.next_revision(), 13);
  EXPECT_EQ(view.revision(), 12);
  WatchReply progress;
  progress.revision = 20;  // nothing of ours changed up to 20
  EXPECT_EQ(view.Apply(progress), EtcdView::kUnchanged);
  EXPECT_EQ(view.next_revision(), 21);
  EXPECT_EQ(view.revision(), 12);
  WatchReply created;  // created: not a progress notify, moves nothing
  created.revision = 30;
  created.created = true;
  EXPECT_EQ(view.Apply(created), EtcdView::kUnchanged);
  EXPECT_EQ(view.next_revision(), 21);
  EXPECT_EQ(view.Apply(Events(22, {DeleteEvent("/sg/d/zz", 22)})), EtcdView::kUnchanged);  // unknown key
  EXPECT_EQ(view.next_revision(), 23);
}

TEST(EtcdViewTest, GoingPastTheBoundsForgetsEverything) {
  EtcdView view("/sg/d/", true);
  std::vector<KeyValue> kvs;
  for (std::size_t i = 0; i <= config::kMaxDestinations; ++i) kvs.push_back({"/sg/d/" + std::to_string(i), "{}", 2});
  EXPECT_EQ(view.Reset(Range(2, kvs)), EtcdView::kOverflow);
  EXPECT_EQ(view.Document().status().code(), StatusCode::kNotFound);
  kvs.pop_back();
  EXPECT_EQ(view.Reset(Range(2, kvs)), EtcdView::kChanged);
  EXPECT_EQ(view.Apply(Events(3, {PutEvent("/sg/d/one-more", "{}", 3)})), EtcdView::kOverflow);
  EXPECT_EQ(view.Reset({2, {}, /*more=*/true}), EtcdView::kOverflow);  // etcd cut the answer short
}

TEST(EtcdViewTest, ADocumentOverTheSizeBoundIsRefused) {
  EtcdView view("/sg/d/", true);
  const std::string big = "\"" + std::string(config::kMaxConfigBytes / 2, 'x') + "\"";
  ASSERT_EQ(view.Reset(Range(2, {{"/sg/d/a", big, 2}, {"/sg/d/b", big, 2}})), EtcdView::kOverflow);
  ASSERT_EQ(view.Reset(Range(2, {{"/sg/d/a", big, 2}})), EtcdView::kChanged);
  ASSERT_TRUE(view.Document().ok());
  const std::string almost = "\"" + std::string(config::kMaxConfigBytes - 20, 'x') + "\"";
  ASSERT_EQ(view.Reset(Range(2, {{"/sg/d/a", almost, 2}})), EtcdView::kChanged);
  EXPECT_EQ(view.Document().status().code(), StatusCode::kResourceExhausted);  // with its wrapping
}

}  // namespace
}  // namespace stormguard::config_sources
