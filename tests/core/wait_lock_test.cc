#include "stormguard/core/wait_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "core/thread_test_util.h"

namespace stormguard {
namespace {

template <class T>
class WaitLockTest : public ::testing::Test {};
using Widths = ::testing::Types<std::uint8_t, std::uint32_t>;
TYPED_TEST_SUITE(WaitLockTest, Widths);

TYPED_TEST(WaitLockTest, IsAsSmallAsItsInteger) { EXPECT_EQ(sizeof(WaitLock<TypeParam>), sizeof(TypeParam)); }

TYPED_TEST(WaitLockTest, TryLockFailsWhileHeldAndSucceedsOnceFreed) {
  WaitLock<TypeParam> mu;
  ASSERT_TRUE(mu.try_lock());
  EXPECT_FALSE(mu.try_lock());
  mu.unlock();
  EXPECT_TRUE(mu.try_lock());
  mu.unlock();
}

// Contended: more threads than cores, each holding the lock across a
// yield, so waiters really sleep and are woken. Every increment counts
// (and TSan sees the plain counter guarded).
TYPED_TEST(WaitLockTest, ExcludesUnderContentionAndLosesNoWakeUp) {
  WaitLock<TypeParam> mu;
  std::uint64_t counter = 0;
  constexpr int kThreads = 6, kRounds = 2000;
  testkit::RunConcurrently(kThreads, [&](int) {
    for (int i = 0; i < kRounds; ++i) {
      std::lock_guard lock(mu);
      const std::uint64_t seen = counter;
      if (i % 64 == 0) std::this_thread::yield();
      counter = seen + 1;
    }
  });
  EXPECT_EQ(counter, std::uint64_t{kThreads} * kRounds);
}

// A waiter blocked behind a holder gets in once it lets go (asleep in the
// futex by then, or still on its way: it must get in either way).
TYPED_TEST(WaitLockTest, AnUnlockWakesAWaiter) {
  WaitLock<TypeParam> mu;
  mu.lock();
  std::atomic<bool> waiting{false}, got{false};
  std::thread waiter([&] {
    waiting = true;
    std::lock_guard lock(mu);
    got = true;
  });
  while (!waiting) std::this_thread::yield();
  EXPECT_FALSE(got);
  mu.unlock();
  waiter.join();
  EXPECT_TRUE(got);
}

}  // namespace
}  // namespace stormguard
