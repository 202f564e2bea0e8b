#include "stormguard/sim/engine.h"

#include <gtest/gtest.h>

#include <vector>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

struct Recorder final : Actor {
  explicit Recorder(Engine& e) : engine(e) {}
  void OnEvent(const SimEvent& e) override {
    seen.push_back(e.a);
    times.push_back(engine.elapsed());
  }
  Engine& engine;
  std::vector<std::uint32_t> seen;
  std::vector<Duration> times;
};

TEST(EngineTest, RunsEventsByTimeThenByTheOrderTheyWereScheduled) {
  Engine engine(1);
  Recorder r(engine);
  engine.After(5ms, &r, 0, 1);
  engine.After(1ms, &r, 0, 2);
  engine.After(5ms, &r, 0, 3);
  engine.After(0ms, &r, 0, 4);
  engine.Run();
  EXPECT_EQ(r.seen, (std::vector<std::uint32_t>{4, 2, 1, 3}));
  EXPECT_EQ(r.times, (std::vector<Duration>{0ms, 1ms, 5ms, 5ms}));
  EXPECT_EQ(engine.events_processed(), 4u);
}

TEST(EngineTest, LanesChangeTheSpeedNeverTheOrder) {
  // The same schedule through the heap only and through two lanes.
  auto run = [](bool lanes) {
    Engine engine(1);
    Recorder r(engine);
    const Engine::Lane a = engine.NewLane(), b = engine.NewLane();
    const Duration at[] = {3ms, 1ms, 3ms, 2ms, 7ms, 2ms, 5ms, 5ms};
    for (std::uint32_t i = 0; i < 8; ++i) {
      if (lanes) {
        engine.AtInLane(i % 2 ? a : b, engine.start() + at[i], &r, 0, i);
      } else {
        engine.At(engine.start() + at[i], &r, 0, i);
      }
    }
    engine.Run();
    return r.seen;
  };
  EXPECT_EQ(run(true), run(false));
  EXPECT_EQ(run(false), (std::vector<std::uint32_t>{1, 3, 5, 0, 2, 6, 7, 4}));
}

TEST(EngineTest, StopsBeforeEventsPastTheLimitAndKeepsThem) {
  Engine engine(1);
  Recorder r(engine);
  engine.After(1s, &r, 0, 1);
  engine.After(3s, &r, 0, 2);
  engine.Run(engine.start() + 2s);
  EXPECT_EQ(r.seen, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(engine.pending(), 1u);
}

TEST(EngineTest, ThePastIsClampedToNow) {
  Engine engine(1);
  Recorder r(engine);
  engine.After(2s, &r, 0, 1);
  engine.Run();
  engine.At(engine.start(), &r, 0, 2);  // "at the start" is already gone
  engine.Run();
  EXPECT_EQ(r.times.back(), 2s);
}

TEST(EngineTest, ClockShowsVirtualTimeWhenAskedFor) {
  Engine engine(1);
  struct Reader final : Actor {
    explicit Reader(Engine& e) : engine(e) {}
    void OnEvent(const SimEvent&) override { read = engine.clock().Now(); }
    Engine& engine;
    TimePoint read;
  } reader(engine);
  engine.After(250ms, &reader, 0);
  engine.Run();
  EXPECT_EQ(reader.read, engine.start() + 250ms);
}

}  // namespace
}  // namespace stormguard::sim
