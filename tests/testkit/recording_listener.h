// tests/testkit/recording_listener.h: the Listener that keeps every event,
// for asserting what a policy or a pipeline reported. One for every test
// tree (the tests link into few binaries: one definition, no look-alikes).
//
//   testkit::RecordingListener events;
//   auto breaker = CircuitBreaker::Create({.listener = &events}).value();
//   ...
//   EXPECT_THAT(events.Transitions(), ElementsAre("closed->open"));
//   events.WaitForCount(EventKind::kAttemptEnded, 2);  // from another thread
//
// Event's strings are static (events.h), so keeping copies is safe. A
// breaker's state events are put in words from their typed states.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "stormguard/core/events.h"
#include "stormguard/guard/circuit_breaker.h"
#include "testkit/wait_until.h"

namespace stormguard::testkit {

class RecordingListener final : public Listener {
 public:
  // What it asks of the pipelines it listens to (Listener's defaults).
  explicit RecordingListener(AttemptTiming timing = AttemptTiming::kEvery, bool wants_started = true)
      : timing_(timing), wants_started_(wants_started) {}

  // Notifies under the lock: a waiter may destroy the listener as soon as
  // it sees the count.
  void OnEvent(const Event& e) noexcept override {
    std::lock_guard lock(mu_);
    events_.push_back(e);
    cv_.notify_all();
  }
  AttemptTiming attempt_timing() const noexcept override { return timing_; }
  bool wants_attempt_started() const noexcept override { return wants_started_; }

  std::vector<Event> events() const {
    std::lock_guard lock(mu_);
    return events_;
  }
  // The events of one kind, in order.
  std::vector<Event> Of(EventKind kind) const {
    std::vector<Event> out;
    for (const Event& e : events()) {
      if (e.kind == kind) out.push_back(e);
    }
    return out;
  }
  // The last event of `kind` (a default Event of that kind when there is none).
  Event Last(EventKind kind) const {
    const auto all = Of(kind);
    return all.empty() ? Event{.kind = kind} : all.back();
  }
  int Count(EventKind kind) const { return static_cast<int>(Of(kind).size()); }

  // An event in words: its reason, or the states a breaker's state event
  // carries ("closed->open"; "closed" for kStateReported).
  static std::string Words(const Event& e) {
    if (e.policy != PolicyId::kCircuitBreaker) return std::string(e.reason);
    const auto from = static_cast<CircuitState>(e.from_state), to = static_cast<CircuitState>(e.to_state);
    if (e.kind == EventKind::kStateChanged) return std::string(CircuitTransitionName(from, to));
    if (e.kind == EventKind::kStateReported) return std::string(CircuitStateName(to));
    return std::string(e.reason);
  }
  // The words of the events of one kind, in order.
  std::vector<std::string> Reasons(EventKind kind) const {
    std::vector<std::string> out;
    for (const Event& e : Of(kind)) out.push_back(Words(e));
    return out;
  }
  std::vector<std::string> Transitions() const { return Reasons(EventKind::kStateChanged); }
  // The kind names of every event, in order.
  std::vector<std::string> Kinds() const {
    std::vector<std::string> out;
    for (const Event& e : events()) out.emplace_back(EventKindName(e.kind));
    return out;
  }
  // "kind:words" of every event, in order.
  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const Event& e : events()) out.push_back(std::string(EventKindName(e.kind)) + ":" + Words(e));
    return out;
  }
  // "kind:attempt" or "kind:attempt:words" of every event, in order.
  std::vector<std::string> Log() const {
    std::vector<std::string> out;
    for (const Event& e : events()) {
      std::string s = std::string(EventKindName(e.kind)) + ":" + std::to_string(e.attempt);
      if (const std::string words = Words(e); !words.empty()) s += ":" + words;
      out.push_back(std::move(s));
    }
    return out;
  }

  // Blocks until `n` events of `kind` have arrived; after `within`, a gtest
  // failure naming the kind (false).
  bool WaitForCount(EventKind kind, int n, std::chrono::milliseconds within = kWaitBound) const {
    std::unique_lock lock(mu_);
    const auto count = [&] {
      return std::count_if(events_.begin(), events_.end(), [kind](const Event& e) { return e.kind == kind; });
    };
    if (cv_.wait_for(lock, within, [&] { return count() >= n; })) return true;
    ADD_FAILURE() << n << " events " << EventKindName(kind) << " did not arrive within " << within.count() << " ms ("
                  << count() << " did)";
    return false;
  }

  void Clear() {
    std::lock_guard lock(mu_);
    events_.clear();
  }

 private:
  const AttemptTiming timing_;
  const bool wants_started_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::vector<Event> events_;
};

}  // namespace stormguard::testkit
