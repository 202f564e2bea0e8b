// Helpers for pipeline tests: a manual environment (clock + timers without a
// thread) and a stage that records when it is entered and left.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <vector>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard::testkit {

struct ManualEnv {
  ManualClock clock;
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();

  PipelineOptions options(Listener* listener = nullptr) {
    return {.clock = &clock, .timers = timers.get(), .listener = listener};
  }
  // Moves the clock and fires what is due, as the timer thread would.
  void AdvanceAndFire(Duration d) {
    clock.Advance(d);
    timers->RunDue();
  }
};

class RecordingStage final : public Stage {
 public:
  RecordingStage(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  std::string_view name() const noexcept override { return name_; }
  Status Execute(CallContext& ctx, Next next) const override {
    log_.push_back(name_ + ">");
    Status s = next(ctx);
    log_.push_back("<" + name_);
    return s;
  }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

// Blocks until `stop` fires; bounded, so a broken timer fails the test
// instead of hanging it. Returns whether it fired.
inline bool WaitForStop(std::stop_token stop) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  return cv.wait_for(lock, stop, std::chrono::seconds(60), [] { return false; }) || stop.stop_requested();
}

template <class T>
T Unwrap(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().ToString());
  return std::move(r).value();
}

// A manual clock that counts its precise and coarse readings. With a
// coarse_tick, the coarse reading lags to the last tick, as
// CLOCK_MONOTONIC_COARSE does; without one it is the precise reading.
class CountingClock final : public Clock {
 public:
  CountingClock() = default;
  explicit CountingClock(Duration tick) : coarse_tick(tick) {}

  TimePoint Now() const noexcept override {
    ++precise;
    return base.Now();
  }
  TimePoint CoarseNow() const noexcept override {
    ++coarse;
    return LastTick();
  }
  bool SleepUntil(TimePoint t, std::stop_token stop) override { return base.SleepUntil(t, std::move(stop)); }
  void ToNextTick() { base.SetNow(LastTick() + coarse_tick); }
  TimePoint LastTick() const noexcept {
    if (coarse_tick <= Duration::zero()) return base.Now();
    const Duration since = base.Now().time_since_epoch();
    return TimePoint(since - since % coarse_tick);
  }

  ManualClock base;
  Duration coarse_tick{};
  mutable int precise = 0;
  mutable int coarse = 0;
};

}  // namespace stormguard::testkit
