// tests/guard/recording_listener.h: a Listener that keeps every event, for
// asserting what a guard reported. One definition for every test file: the
// tests link into one binary.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "stormguard/core/events.h"

namespace stormguard::testing {

class RecordingListener final : public Listener {
 public:
  void OnEvent(const Event& e) noexcept override {
    std::lock_guard lock(mu_);
    events_.push_back(e);
  }

  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  // The reasons of the events of one kind, in order.
  std::vector<std::string> Reasons(EventKind kind) const {
    std::vector<std::string> out;
    for (const Event& e : events()) {
      if (e.kind == kind) out.emplace_back(e.reason);
    }
    return out;
  }
  std::vector<std::string> Transitions() const { return Reasons(EventKind::kStateChanged); }
  int Count(EventKind kind) const {
    const auto all = events();
    return static_cast<int>(std::count_if(all.begin(), all.end(),
                                          [kind](const Event& e) { return e.kind == kind; }));
  }
  void Clear() {
    std::lock_guard lock(mu_);
    events_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::vector<Event> events_;
};

}  // namespace stormguard::testing
