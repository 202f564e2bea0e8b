// tests/testkit/wait_until.h: the bounded wait for tests that wait on
// another thread. A component that never gets there fails the test with a
// message naming what did not happen, instead of hanging the run until
// ctest's timeout; usable from every test tree (the adapters' tests have
// tests/ on their include path).
//
//   std::thread worker([&] { started = true; ... });
//   ASSERT_TRUE(testkit::WaitUntil([&] { return started.load(); }, "the worker's start"));
//
// It spins with yield, as the loops it replaced did: what these tests wait
// for is microseconds away, and a sleep would slow every run.
#pragma once

#include <chrono>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

namespace stormguard::testkit {

// Long enough for a sanitizer build on a loaded machine.
inline constexpr std::chrono::milliseconds kWaitBound = std::chrono::seconds(10);

// Returns once pred() holds (true), or after `within` with a gtest failure
// naming `what` (false). Callable from any thread of the test.
template <class Pred>
[[nodiscard]] bool WaitUntil(Pred&& pred, std::string_view what, std::chrono::milliseconds within = kWaitBound) {
  const auto give_up = std::chrono::steady_clock::now() + within;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= give_up) {
      ADD_FAILURE() << what << " did not happen within " << within.count() << " ms";
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

}  // namespace stormguard::testkit
