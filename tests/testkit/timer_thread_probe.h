// tests/testkit/timer_thread_probe.h: what the tests of "the timer thread
// never waits for user code" share: a listener that blocks in one kind of
// event (a slow exporter), and a timer that records how late it fired.
// They run on real threads and the real clock, since the thing under test
// is a TimerService's own thread: the bound (100 ms) is far above its
// precision (a tick), and above what a loaded two-core machine running a
// sanitizer adds, and far below the listener's 300 ms stall (a timer thread
// held by the listener fires the probe about 280 ms late).
//
//   testkit::StallingListener slow(EventKind::kHedgeLaunched);
//   testkit::TimerProbe probe{.clock = clock, .due = start + 30ms};
//   TimerHandle h = timers->Schedule(probe.due, &testkit::TimerProbe::Fire, &probe);
//   ... make the timer-driven path report to `slow` ...
//   EXPECT_LT(probe.Lateness(), testkit::kAllowedTimerLateness);
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"

namespace stormguard::testkit {

inline constexpr Duration kListenerStall = std::chrono::milliseconds(300);
inline constexpr Duration kAllowedTimerLateness = std::chrono::milliseconds(100);

// Sleeps kListenerStall in every event of `kind` (entering `to_state`, when
// given), then counts it.
class StallingListener final : public Listener {
 public:
  explicit StallingListener(EventKind kind, std::optional<std::uint8_t> to_state = std::nullopt)
      : kind_(kind), to_state_(to_state) {}
  void OnEvent(const Event& e) noexcept override {
    if (e.kind != kind_ || (to_state_.has_value() && e.to_state != *to_state_)) return;
    std::this_thread::sleep_for(kListenerStall);
    stalled.fetch_add(1);
  }
  std::atomic<int> stalled{0};

 private:
  EventKind kind_;
  std::optional<std::uint8_t> to_state_;
};

// A timer's argument that records when it fired, on the clock it follows.
struct TimerProbe {
  Clock& clock;
  TimePoint due;
  std::atomic<std::int64_t> fired_ns{-1};

  static void Fire(void* self) noexcept {
    auto* p = static_cast<TimerProbe*>(self);
    p->fired_ns.store(p->clock.Now().time_since_epoch().count());
  }
  bool fired() const { return fired_ns.load() >= 0; }
  Duration Lateness() const { return Duration(fired_ns.load()) - due.time_since_epoch(); }
  long long LatenessMs() const { return std::chrono::duration_cast<std::chrono::milliseconds>(Lateness()).count(); }
};

}  // namespace stormguard::testkit
