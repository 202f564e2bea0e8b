// tests/guard/recording_listener.h: a Listener that keeps every event, for
// asserting what a guard reported.
#pragma once

#include <mutex>
#include <vector>

#include "stormguard/core/events.h"

namespace stormguard::testing {

class RecordingListener final : public Listener {
 public:
  void OnEvent(const Event& event) noexcept override {
    std::lock_guard lock(mu_);
    events_.push_back(event);
  }
  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

}  // namespace stormguard::testing
