// The adaptive throttle on the real transport: the library's HttpClient
// against a cpp-httplib server on loopback that refuses with 429 what is
// beyond its room. The room is one call per ten the application makes, so
// naive retries meet 90% refusals; time is the pipeline's manual clock,
// 10 ms per call, and the loops are bounded.
#include <gtest/gtest.h>

#include <atomic>

#include "client_test_util.h"
#include "stormguard/http/client.h"
#include "test_server.h"

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;

constexpr int kCalls = 2000;  // 20 s of the manual clock

struct RoomServer {
  testkit::TestServer srv;
  std::atomic<int> room{0};
  std::atomic<int> received{0};
  std::atomic<int> accepted{0};

  RoomServer() {
    srv.server.Get("/work", [this](const httplib::Request&, httplib::Response& res) {
      ++received;
      int left = room.load();
      while (left > 0 && !room.compare_exchange_weak(left, left - 1)) {
      }
      res.status = left > 0 ? 200 : 429;
      if (left > 0) ++accepted;
    });
    srv.Start();
  }
};

// Runs kCalls calls through `pipeline`, the server's room growing by one every tenth.
void Drive(RoomServer& s, ManualClock& clock, PipelineRef pipeline) {
  auto client = HttpClient::Create({.pipeline = std::move(pipeline)});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  for (int i = 0; i < kCalls; ++i) {
    if (i % 10 == 0) ++s.room;
    (void)client->Send({.url = s.srv.Url("/work")});
    clock.Advance(10ms);
  }
}

PipelineBuilder Retrying(ManualClock& clock) {
  return std::move(PipelineBuilder({.clock = &clock})
                       .AddRetry({.max_attempts = 3, .backoff = {.kind = BackoffKind::kConstant, .base = 0ms}}));
}

TEST(ThrottleLiveTest, TheServerGetsAboutKTimesWhatItAccepts) {
  RoomServer s;
  ManualClock clock;
  auto throttle = AdaptiveThrottle::Create({.k = 2, .seed = 5});
  ASSERT_TRUE(throttle.ok());
  Drive(s, clock, testkit::Built(Retrying(clock).AddAdaptiveThrottle(*throttle)));
  EXPECT_GT(s.accepted.load(), kCalls / 10 - 10);  // the server stays busy
  EXPECT_LE(s.received.load(), 2.0 * 1.15 * s.accepted.load()) << s.received << " " << s.accepted;
  EXPECT_GT((*throttle)->rejected(), 0);
}

TEST(ThrottleLiveTest, NaiveRetriesSendSeveralTimesMore) {
  RoomServer s;
  ManualClock clock;
  Drive(s, clock, testkit::Built(Retrying(clock)));
  EXPECT_GE(s.received.load(), 10 * s.accepted.load()) << s.received << " " << s.accepted;
}

}  // namespace
}  // namespace stormguard::http
