// Bounded polling on the real clock, for what no callback announces (a
// source's stats), and the test document whose max_attempts tells its
// versions apart.
#pragma once

#include <chrono>
#include <string>
#include <thread>

namespace stormguard::config_sources::testkit {

// Polls `done` every 5 ms until it holds or `limit` passes; returns whether it holds.
template <class F>
bool Eventually(F done, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
  using Clock = std::chrono::steady_clock;
  for (const auto until = Clock::now() + limit; Clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

// A valid configuration: one destination retrying up to `attempts` times.
inline std::string Doc(int attempts) {
  return R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": )" +
         std::to_string(attempts) + "}}]}}}}";
}

}  // namespace stormguard::config_sources::testkit
