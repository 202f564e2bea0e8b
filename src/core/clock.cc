#include "stormguard/core/clock.h"

#include <time.h>


namespace stormguard {
namespace {

class SteadyClock final : public Clock {
 public:
  TimePoint Now() const noexcept override {
    return std::chrono::time_point_cast<Duration>(std::chrono::steady_clock::now());
  }

  TimePoint CoarseNow() const noexcept override {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);  // same axis as steady_clock, tick resolution
    return TimePoint(std::chrono::seconds(ts.tv_sec) + Duration(ts.tv_nsec));
  }

  bool SleepUntil(TimePoint t, std::stop_token stop) override {
    if (stop.stop_requested()) return false;
    if (Now() >= t) return true;
    std::mutex mu;
    std::condition_variable_any cv;
    std::unique_lock lock(mu);
    // wait_until with a stop_token wakes on stop without a polling loop.
    cv.wait_until(lock, stop, t, [] { return false; });
    return !stop.stop_requested();
  }
};

}  // namespace

Clock& Clock::Real() noexcept {
  static SteadyClock clock;
  return clock;
}

bool ManualClock::SleepUntil(TimePoint t, std::stop_token stop) {
  if (stop.stop_requested()) return false;
  if (mode_ == SleepMode::kAdvanceOnSleep) {
    const TimePoint now = Now();
    if (t > now) {
      slept_.fetch_add((t - now).count());
      SetNow(t);
    }
    sleeps_.fetch_add(1);
    return true;
  }
  std::unique_lock lock(mu_);
  moved_.wait(lock, stop, [&] { return Now() >= t; });
  return Now() >= t;
}

void ManualClock::Advance(Duration d) { SetNow(SaturatingAdd(Now(), d)); }

void ManualClock::SetNow(TimePoint t) {
  {
    std::lock_guard lock(mu_);
    Duration::rep cur = now_.load();
    while (t.time_since_epoch().count() > cur &&
           !now_.compare_exchange_weak(cur, t.time_since_epoch().count())) {
    }
  }
  moved_.notify_all();
}

}  // namespace stormguard
