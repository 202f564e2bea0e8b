// Records what a source hands its sink, and lets a test wait (bounded, on
// the real clock) until it has seen something.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "stormguard/config_sources/config_update.h"

namespace stormguard::config_sources::testkit {

class SinkRecorder {
 public:
  struct Entry {
    Result<ConfigUpdate> update;
    std::chrono::steady_clock::time_point at;
  };

  ConfigSink sink() {
    return [this](Result<ConfigUpdate> u) {
      std::lock_guard lock(mu_);
      entries_.push_back({std::move(u), std::chrono::steady_clock::now()});
      cv_.notify_all();
    };
  }

  // Waits until `done(entries)` holds or `limit` passes; returns whether it holds.
  bool WaitFor(const std::function<bool(const std::vector<Entry>&)>& done,
               std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, limit, [&] { return done(entries_); });
  }
  // Waits for a document whose text is `text`.
  bool WaitForText(const std::string& text, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    return WaitFor(
        [&](const auto& es) {
          for (const auto& e : es) {
            if (e.update.ok() && e.update->text == text) return true;
          }
          return false;
        },
        limit);
  }
  // Waits for at least `n` entries.
  bool WaitForCount(std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    return WaitFor([&](const auto& es) { return es.size() >= n; }, limit);
  }

  std::vector<Entry> entries() {
    std::lock_guard lock(mu_);
    return entries_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> entries_;
};

}  // namespace stormguard::config_sources::testkit
