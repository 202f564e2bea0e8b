#include "stormguard/core/clock.h"

#include <time.h>

namespace stormguard {
namespace {

class SteadyClock final : public Clock {
 public:
  // Both read clock_gettime directly: CLOCK_MONOTONIC is what
  // steady_clock::now() reads on Linux, without its extra call.
  TimePoint Now() const noexcept override { return Read(CLOCK_MONOTONIC); }

  TimePoint CoarseNow() const noexcept override {
    return Read(CLOCK_MONOTONIC_COARSE);  // same axis, tick resolution
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

 private:
  static TimePoint Read(clockid_t id) noexcept {
    timespec ts{};
    clock_gettime(id, &ts);
    return TimePoint(std::chrono::seconds(ts.tv_sec) + Duration(ts.tv_nsec));
  }
};

}  // namespace

Clock& Clock::Real() noexcept {
  // Never destroyed: TimerService::Default()'s thread (also leaked) may read
  // it while the process exits.
  static SteadyClock* const clock = new SteadyClock;
  return *clock;
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

// Writers serialise on mu_ (which also orders them with sleepers' predicate
// checks), so reading and storing now_ under it is one atomic step: two
// concurrent Advance(1ns) calls move the clock by 2ns.
void ManualClock::Advance(Duration d) {
  {
    std::lock_guard lock(mu_);
    const Duration now(now_.load(std::memory_order_relaxed));
    if (d > Duration::zero()) now_.store(SaturatingAdd(now, d).count(), std::memory_order_release);
  }
  moved_.notify_all();
}

void ManualClock::SetNow(TimePoint t) {
  {
    std::lock_guard lock(mu_);
    const Duration::rep target = t.time_since_epoch().count();
    if (target > now_.load(std::memory_order_relaxed)) now_.store(target, std::memory_order_release);
  }
  moved_.notify_all();
}

}  // namespace stormguard
