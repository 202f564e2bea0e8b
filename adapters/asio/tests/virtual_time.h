// Asio timers on the scenario suite's virtual time: a chrono clock whose
// now() reads the current ScenarioClock, and wait traits that make the
// reactor look at the timers on every poll (the real time it would sleep
// means nothing here). A test loop ticks the clock, then io.poll().
#pragma once

#include <asio/basic_waitable_timer.hpp>
#include <chrono>

#include "pipeline/scenarios/scenario_driver.h"
#include "stormguard/asio/asio_timers.h"

namespace stormguard::testkit {

struct VirtualClock {
  using duration = Duration;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<VirtualClock, duration>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point(current->Now().time_since_epoch()); }
  static time_point At(TimePoint t) noexcept { return time_point(t.time_since_epoch()); }

  static inline Clock* current = nullptr;  // one test at a time
};

struct PollEveryTime {
  static VirtualClock::duration to_wait_duration(const VirtualClock::duration&) { return {}; }
  static VirtualClock::duration to_wait_duration(const VirtualClock::time_point&) { return {}; }
};

using VirtualTimers = BasicAsioTimers<VirtualClock, PollEveryTime>;
using VirtualTimer = asio::basic_waitable_timer<VirtualClock, PollEveryTime>;

// Installs `clock` as the virtual clock for its lifetime.
class UseVirtualClock {
 public:
  explicit UseVirtualClock(Clock& clock) { VirtualClock::current = &clock; }
  ~UseVirtualClock() { VirtualClock::current = nullptr; }
  UseVirtualClock(const UseVirtualClock&) = delete;
  UseVirtualClock& operator=(const UseVirtualClock&) = delete;
};

}  // namespace stormguard::testkit
