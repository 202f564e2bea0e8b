// ReloadInto: the sink that feeds a registry from a source.
#include "stormguard/config_sources/reload_into.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stormguard::config_sources {
namespace {

struct Seen {
  std::string origin;
  bool accepted;
  std::uint64_t version;
  std::vector<std::string> errors;
};

class ReloadIntoTest : public ::testing::Test {
 protected:
  std::vector<Seen> seen_;
  config::Registry registry_{{.on_reload = [this](const config::ReloadEvent& e) {
    seen_.push_back({std::string(e.origin), e.accepted, e.version, e.errors});
  }}};
  ConfigSink sink_ = ReloadInto(registry_, "etcd:/sg/config");
};

constexpr const char* kGood = R"({"destinations": {"inventory": {"pipeline": {"background_job": {}}}}})";

TEST_F(ReloadIntoTest, ADocumentIsAppliedUnderItsOwnOrigin) {
  const auto before = registry_.Get("inventory");
  sink_(ConfigUpdate{.text = kGood, .origin = "etcd:/sg/config@7", .revision = 7});
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_FALSE(registry_.on_defaults());
  EXPECT_NE(registry_.Get("inventory"), before);
  ASSERT_EQ(seen_.size(), 2U);  // the built-in default, then this one
  EXPECT_TRUE(seen_[1].accepted);
  EXPECT_EQ(seen_[1].origin, "etcd:/sg/config@7");
}

TEST_F(ReloadIntoTest, AnInvalidDocumentKeepsTheLastGoodOne) {
  sink_(ConfigUpdate{.text = kGood, .origin = "etcd:/sg/config", .revision = 1});
  const auto good = registry_.Get("inventory");
  sink_(ConfigUpdate{
      .text = R"({"destinations": {"inventory": {"retry_budget": 7}}})", .origin = "etcd:/sg/config", .revision = 2});
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_EQ(registry_.Stats().rejected, 1U);
  EXPECT_EQ(registry_.Get("inventory"), good);
  ASSERT_EQ(seen_.size(), 3U);
  EXPECT_FALSE(seen_[2].accepted);
  ASSERT_FALSE(seen_[2].errors.empty());
  EXPECT_EQ(seen_[2].errors[0].rfind("destinations.inventory.retry_budget", 0), 0U) << seen_[2].errors[0];
}

TEST_F(ReloadIntoTest, AFailedReadIsRejectedUnderTheSourcesName) {
  sink_(ConfigUpdate{.text = kGood, .origin = "etcd:/sg/config", .revision = 1});
  const auto good = registry_.Get("inventory");
  sink_(Status::Unavailable("etcd:/sg/config: connection refused"));
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_EQ(registry_.Stats().rejected, 1U);
  EXPECT_EQ(registry_.Get("inventory"), good);
  ASSERT_EQ(seen_.size(), 3U);
  EXPECT_FALSE(seen_[2].accepted);
  EXPECT_EQ(seen_[2].origin, "etcd:/sg/config");
  ASSERT_EQ(seen_[2].errors.size(), 1U);
  EXPECT_NE(seen_[2].errors[0].find("connection refused"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::config_sources
