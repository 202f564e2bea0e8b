// A registry fed by an EtcdSource through ReloadInto, against a real etcd on
// loopback (etcd_process.h): what a service that adopts stormguard runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include "etcd_process.h"
#include "eventually.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/reload_into.h"

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;
using testkit::Doc;
using testkit::EtcdProcess;
using Clock = std::chrono::steady_clock;

// What the registry's listener saw, with a bounded wait on it.
class Events {
 public:
  void Add(const config::ReloadEvent& e) {
    std::lock_guard lock(mu_);
    events_.push_back({e.accepted, e.version, e.errors, Clock::now()});
    cv_.notify_all();
  }
  struct Event {
    bool accepted;
    std::uint64_t version;
    std::vector<std::string> errors;
    Clock::time_point at;
  };
  // The first event from index `from` on that satisfies `match`, waiting at most `limit`.
  template <class F>
  std::optional<Event> WaitFrom(std::size_t from, F match, milliseconds limit = milliseconds(5000)) {
    std::unique_lock lock(mu_);
    std::optional<Event> found;
    cv_.wait_for(lock, limit, [&] {
      for (std::size_t i = from; i < events_.size(); ++i) {
        if (match(events_[i])) return (found = events_[i]).has_value();
      }
      return false;
    });
    return found;
  }
  std::size_t size() {
    std::lock_guard lock(mu_);
    return events_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Event> events_;
};

class RegistryReloadIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(etcd_.Start()) << "etcd did not start (apt-get install etcd-server)";
    ASSERT_GT(etcd_.Put("/sg/config", Doc(1)), 0);
    auto source = EtcdSource::Start({.endpoint = etcd_.endpoint(), .key = "/sg/config", .seed = 7},
                                    ReloadInto(registry_, "etcd:/sg/config"));
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    source_ = std::move(source).value();
    ASSERT_TRUE(WaitAccepted(1));
  }
  void TearDown() override {
    if (source_) source_->Stop();  // before the registry goes
  }

  std::optional<Events::Event> WaitAccepted(std::uint64_t version, std::size_t from = 0) {
    return events_.WaitFrom(from, [&](const Events::Event& e) { return e.accepted && e.version == version; });
  }

  EtcdProcess etcd_;
  Events events_;
  config::Registry registry_{{.on_reload = [this](const config::ReloadEvent& e) { events_.Add(e); }}};
  std::unique_ptr<EtcdSource> source_;
};

TEST_F(RegistryReloadIntegrationTest, APutIsAppliedWithin100Milliseconds) {
  std::vector<double> ms;
  for (int i = 2; i <= 101; ++i) {
    // Paced past the source's coalescing interval: this times an isolated write.
    std::this_thread::sleep_for(milliseconds(55));
    const auto before = registry_.Get("inventory");
    const std::size_t from = events_.size();
    const auto put = Clock::now();
    ASSERT_GT(etcd_.Put("/sg/config", Doc(i)), 0);
    const auto applied = WaitAccepted(static_cast<std::uint64_t>(i), from);
    ASSERT_TRUE(applied) << "put " << i << " was not applied";
    ms.push_back(std::chrono::duration<double, std::milli>(applied->at - put).count());
    EXPECT_NE(registry_.Get("inventory"), before) << "put " << i;
  }
  std::sort(ms.begin(), ms.end());
  const auto rank = [&](std::size_t pct) { return ms[(ms.size() * pct + 99) / 100 - 1]; };  // nearest rank
  std::printf("etcd put -> registry applied over %zu puts: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", ms.size(),
              rank(50), rank(99), ms.back());
  EXPECT_LT(rank(99), 100.0);
  EXPECT_EQ(registry_.Stats().accepted, 101U);
  EXPECT_EQ(registry_.Stats().rejected, 0U);
}

TEST_F(RegistryReloadIntegrationTest, AnInvalidPutKeepsTheLastGoodConfig) {
  const auto good = registry_.Get("inventory");
  const std::size_t from = events_.size();
  ASSERT_GT(etcd_.Put("/sg/config", Doc(0)), 0);
  const auto refused = events_.WaitFrom(from, [](const Events::Event& e) { return !e.accepted; });
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->version, 1U);
  ASSERT_EQ(refused->errors.size(), 1U);
  EXPECT_EQ(refused->errors[0].rfind("destinations.inventory.pipeline.stages[0].retry.max_attempts:", 0), 0U)
      << refused->errors[0];
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_EQ(registry_.Stats().rejected, 1U);
  EXPECT_EQ(registry_.Get("inventory"), good);
}

TEST_F(RegistryReloadIntegrationTest, ServesTheLastGoodConfigWhileEtcdIsDownAndAppliesAPutAfterTheRestart) {
  const auto good = registry_.Get("inventory");
  const std::size_t from = events_.size();
  etcd_.Kill();
  // The source reports the broken stream; the registry refuses it and keeps serving.
  ASSERT_TRUE(events_.WaitFrom(from, [](const Events::Event& e) { return !e.accepted; }));
  EXPECT_EQ(registry_.version(), 1U);
  EXPECT_EQ(registry_.Get("inventory"), good);
  ASSERT_TRUE(etcd_.Start());
  ASSERT_GT(etcd_.Put("/sg/config", Doc(4)), 0);
  ASSERT_TRUE(WaitAccepted(2, from)) << "the put after the restart was not applied";
  EXPECT_NE(registry_.Get("inventory"), good);
}

}  // namespace
}  // namespace stormguard::config_sources
