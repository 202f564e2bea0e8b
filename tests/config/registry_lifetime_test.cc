// When a configuration is freed: when the last handle on it goes, whichever
// thread releases it, before or after the registry. Every configuration
// here hedges, and each hedge stage holds a copy of the registry's hedge
// executor, so the executor's use count tells how many configurations live.
#include <gtest/gtest.h>

#include <latch>
#include <thread>
#include <vector>

#include "registry_test_util.h"

namespace stormguard::config {
namespace {
using testkit::Describe;
using testkit::RegistryEnv;

std::string Hedged(int attempts) {
  return R"({"destinations": {"d": {"pipeline": {"stages": [{"hedge": {"max_hedged_attempts": )" +
         std::to_string(attempts) + "}}]}}}}";
}

class RegistryLifetimeTest : public ::testing::Test {
 protected:
  RegistryOptions Options() {
    RegistryOptions o = env.Options();
    o.hedge_executor = executor;
    return o;
  }
  // Hedge stages of live configurations: the count less this test's and the registry's copy.
  long LiveHedges(bool registry_alive = true) const { return executor.use_count() - 1 - (registry_alive ? 1 : 0); }

  RegistryEnv env;
  std::shared_ptr<Executor> executor = Executor::Create({.threads = 1}).value();
};

TEST_F(RegistryLifetimeTest, AHandleReleasedOnAnotherThreadAfterItsConfigurationRetiredFreesIt) {
  Registry registry(Options());
  ASSERT_TRUE(registry.Apply(Hedged(1), "v1").ok());
  PipelineRef old = registry.Get("d");
  ASSERT_TRUE(registry.Apply(Hedged(2), "v2").ok());
  (void)registry.Get("d");  // this thread retires its reference to v1; `old` keeps v1
  ASSERT_EQ(LiveHedges(), 2);
  std::thread([h = std::move(old)]() mutable {
    EXPECT_TRUE(testkit::Call(*h, Status::Ok()).ok());
    h.reset();
  }).join();
  EXPECT_EQ(LiveHedges(), 1) << "the last handle on v1 went on another thread, and v1 with it";
}

TEST_F(RegistryLifetimeTest, ACopyOnAnotherThreadKeepsTheConfigurationAfterTheOriginalGoes) {
  Registry registry(Options());
  ASSERT_TRUE(registry.Apply(Hedged(1), "v1").ok());
  PipelineRef original = registry.Get("d");
  std::latch copied(1), released(1);
  std::thread other([&] {
    PipelineRef copy = original;
    copied.count_down();
    released.wait();
    ASSERT_TRUE(registry.Apply(Hedged(2), "v2").ok());
    EXPECT_EQ(Describe(copy), "hedge(1 after 2s) -> call");
  });
  copied.wait();
  original.reset();
  released.count_down();
  other.join();
  (void)registry.Get("d");  // retires this thread's reference to v1
  EXPECT_EQ(LiveHedges(), 1);
}

TEST_F(RegistryLifetimeTest, AHandleOutlivesTheRegistryAndFreesItsConfigurationLast) {
  PipelineRef kept, other_thread;
  {
    Registry registry(Options());
    ASSERT_TRUE(registry.Apply(Hedged(1), "v1").ok());
    kept = registry.Get("d");
    std::thread([&] { other_thread = registry.Get("d"); }).join();
  }
  EXPECT_EQ(LiveHedges(false), 1);
  EXPECT_EQ(Describe(kept), "hedge(1 after 2s) -> call");
  kept.reset();
  EXPECT_EQ(LiveHedges(false), 1) << "the other thread's handle still holds it";
  other_thread.reset();
  EXPECT_EQ(LiveHedges(false), 0);
}

TEST_F(RegistryLifetimeTest, ThreadsBeyondTheSlotsKeepTheirPipelineAcrossAReload) {
  Registry registry(Options());
  ASSERT_TRUE(registry.Apply(Hedged(1), "v1").ok());
  constexpr int kThreads = Registry::kThreadSlots + 1;
  std::vector<PipelineRef> handles(kThreads);
  std::latch all_hold(kThreads + 1), reloaded(1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      PipelineRef& h = handles[static_cast<std::size_t>(i)];
      h = registry.Get("d");
      all_hold.arrive_and_wait();
      reloaded.wait();
      EXPECT_EQ(Describe(h), "hedge(1 after 2s) -> call");
      h = registry.Get("d");  // past the slots too: the new configuration
      EXPECT_EQ(Describe(h), "hedge(2 after 2s) -> call");
      h.reset();
    });
  }
  all_hold.arrive_and_wait();
  ASSERT_TRUE(registry.Apply(Hedged(2), "v2").ok());
  reloaded.count_down();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(LiveHedges(), 1) << "v1 is freed once every thread let it go";
}

}  // namespace
}  // namespace stormguard::config
