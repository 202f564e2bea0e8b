// The shared test helpers must fail loudly: a bounded wait that quietly
// gave up would let a stuck component pass. Short bounds keep these quick;
// nothing ever holds or arrives, so the outcome is fixed.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "testkit/recording_listener.h"
#include "testkit/wait_until.h"

namespace stormguard::testkit {
namespace {
using namespace std::chrono_literals;

TEST(WaitUntilTest, AWaitThatRunsOutFailsNamingWhatDidNotHappen) {
  EXPECT_NONFATAL_FAILURE(EXPECT_FALSE(WaitUntil([] { return false; }, "the impossible", 1ms)),
                          "the impossible did not happen within 1 ms");
}

TEST(WaitUntilTest, ReturnsOnceTheConditionHolds) {
  std::atomic<bool> ready{false};
  std::thread setter([&] { ready = true; });
  EXPECT_TRUE(WaitUntil([&] { return ready.load(); }, "the setter"));
  setter.join();
}

TEST(RecordingListenerTest, KeepsEveryEventInOrderWithItsViews) {
  RecordingListener events;
  events.OnEvent({.kind = EventKind::kStateChanged,
                  .policy = PolicyId::kCircuitBreaker,
                  .from_state = static_cast<std::uint8_t>(CircuitState::kClosed),
                  .to_state = static_cast<std::uint8_t>(CircuitState::kOpen),
                  .attempt = 1});
  events.OnEvent({.kind = EventKind::kAttemptEnded, .attempt = 2});
  EXPECT_EQ(events.Count(EventKind::kAttemptEnded), 1);
  EXPECT_EQ(events.Transitions(), std::vector<std::string>{"closed->open"});
  EXPECT_EQ(events.Last(EventKind::kAttemptEnded).attempt, 2);
  EXPECT_EQ(events.Last(EventKind::kRejected).kind, EventKind::kRejected);  // none: a default one
  EXPECT_EQ(events.Log(), (std::vector<std::string>{"state_changed:1:closed->open", "attempt_ended:2"}));
  EXPECT_EQ(events.Names(), (std::vector<std::string>{"state_changed:closed->open", "attempt_ended:"}));
  events.Clear();
  EXPECT_TRUE(events.events().empty());
}

TEST(RecordingListenerTest, AWaitForEventsThatNeverComeFails) {
  RecordingListener events;
  EXPECT_NONFATAL_FAILURE(EXPECT_FALSE(events.WaitForCount(EventKind::kAttemptEnded, 1, 1ms)),
                          "did not arrive within 1 ms (0 did)");
}

TEST(RecordingListenerTest, AWaitEndsWhenTheEventsArriveFromAnotherThread) {
  RecordingListener events;
  std::thread reporter([&] {
    for (int i = 0; i < 3; ++i) events.OnEvent({.kind = EventKind::kAttemptEnded, .attempt = i});
  });
  EXPECT_TRUE(events.WaitForCount(EventKind::kAttemptEnded, 3));
  reporter.join();
}

}  // namespace
}  // namespace stormguard::testkit
