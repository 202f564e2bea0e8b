// Test helper: run one function on several threads at once and wait for all.
#pragma once

#include <thread>
#include <vector>

namespace stormguard::testkit {

// Calls fn(thread_index) on `threads` threads and joins them all.
template <class Fn>
void RunConcurrently(int threads, Fn fn) {
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(fn, t);
  for (auto& t : pool) t.join();
}

}  // namespace stormguard::testkit
