// stormguard/sim/engine.h: discrete events on virtual time.
//
// The engine keeps a queue of events ordered by (time, sequence number), so
// two events at the same instant run in the order they were scheduled and a
// seed fixes the whole run. Actors receive events through one virtual call;
// an event is a small plain struct, so scheduling never allocates once the
// queue has grown.
//
// Lanes: events scheduled a fixed delay ahead (a per-attempt timeout) arrive
// in time order, so they wait in a FIFO lane instead of the heap; the engine
// merges lanes and heap by (time, sequence), so a lane changes the speed,
// never the order. An event that would break a lane's order goes to the heap.
//
//   struct Ping final : sim::Actor {
//     void OnEvent(const sim::SimEvent& e) override { ... }
//   } ping;
//   sim::Engine engine(/*seed=*/42);
//   engine.After(std::chrono::milliseconds(5), &ping, /*kind=*/0);
//   engine.Run();                         // engine.now() == start + 5ms
//
// Time: the engine owns a ManualClock. clock() moves it to the current
// virtual time before returning it; call it right before handing the clock
// to a component that reads time (moving it on every event would cost a
// lock per event for nothing).
// Randomness: every draw comes from engine.rng(), seeded once.
// Thread safety: none; one engine runs on one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/random.h"
#include "stormguard/core/time.h"

namespace stormguard::sim {

struct SimEvent {
  TimePoint at;
  std::uint64_t seq = 0;
  class Actor* actor = nullptr;
  std::uint32_t kind = 0;
  std::uint32_t a = 0;  // actor-defined (usually an object index)
  std::uint64_t b = 0;  // actor-defined (usually a generation and a counter)
};

class Actor {
 public:
  virtual void OnEvent(const SimEvent& event) = 0;

 protected:
  ~Actor() = default;
};

class Engine {
 public:
  // Virtual time starts at `start` (an arbitrary point far from zero, so a
  // Deadline computed from it is never confused with "the epoch").
  explicit Engine(std::uint64_t seed, TimePoint start = TimePoint(std::chrono::hours(1)));

  TimePoint start() const noexcept { return start_; }
  TimePoint now() const noexcept { return now_; }
  Duration elapsed() const noexcept { return now_ - start_; }
  ManualClock& clock() {
    if (clock_.Now() != now_) clock_.SetNow(now_);
    return clock_;
  }
  Random& rng() noexcept { return rng_; }

  // Schedules an event at `at` (clamped to now: the past is gone).
  void At(TimePoint at, Actor* actor, std::uint32_t kind, std::uint32_t a = 0, std::uint64_t b = 0);
  void After(Duration d, Actor* actor, std::uint32_t kind, std::uint32_t a = 0, std::uint64_t b = 0) {
    At(SaturatingAdd(now_, d), actor, kind, a, b);
  }

  // A FIFO lane for events that are usually scheduled in time order.
  using Lane = std::uint32_t;
  Lane NewLane();
  void AtInLane(Lane lane, TimePoint at, Actor* actor, std::uint32_t kind, std::uint32_t a = 0, std::uint64_t b = 0);

  // Runs events in order until none is left or the next one is after `until`.
  void Run(TimePoint until = kInfiniteFuture);

  // Called about every 65536 events with the virtual time reached, for a
  // progress bar. Empty by default.
  void OnProgress(std::function<void(TimePoint)> fn) { progress_ = std::move(fn); }

  std::uint64_t events_processed() const noexcept { return processed_; }
  std::size_t pending() const noexcept;

 private:
  SimEvent Make(TimePoint at, Actor* actor, std::uint32_t kind, std::uint32_t a, std::uint64_t b) noexcept {
    return SimEvent{.at = at < now_ ? now_ : at, .seq = next_seq_++, .actor = actor, .kind = kind, .a = a, .b = b};
  }
  void Push(const SimEvent& e);
  void SiftUp(std::size_t i) noexcept;
  void SiftDown(std::size_t i) noexcept;
  void PopHeap() noexcept;
  // The lane whose front comes before the heap's top, or -1 for the heap.
  int NextLane() const noexcept;

  TimePoint start_;
  TimePoint now_;
  ManualClock clock_;
  Random rng_;
  std::uint64_t next_seq_ = 0;
  std::uint64_t processed_ = 0;
  std::vector<SimEvent> heap_;  // a 4-ary min-heap on (at, seq)
  std::vector<std::deque<SimEvent>> lanes_;
  std::function<void(TimePoint)> progress_;
};

}  // namespace stormguard::sim
