// stormguard/core/events.h: every decision a policy makes, as an event.
//
// Policies report attempts, retries, give-ups, rejections and state changes
// to a Listener. Metrics exporters (counters, Prometheus, logs) are
// listeners; none of them is needed for the policies to work.
//
//   struct Log : Listener {
//     void OnEvent(const Event& e) noexcept override { ... e.kind, PolicyName(e.policy) ... }
//   };
//
// Events are typed: the policy is a PolicyId (core/policy_id.h) and a
// state change carries the policy's own state enum values (the breaker's
// CircuitState), so a listener switches on numbers and never parses text.
// `reason` is words for people (logs); nothing counts by it.
//
// Which instance: policies name themselves by kind (kCircuitBreaker), so
// to tell two breakers (or two pipelines) apart on one listener, give each a
// ScopedListener in front of the shared one; their events arrive with
// `scope` set to its name ("payments", "inventory"):
//
//   ScopedListener payments("payments", metrics);   // outlives the breaker
//   auto breaker = CircuitBreaker::Create({.listener = &payments});
//
// Thread safety: OnEvent may be called concurrently from every thread that
// runs a call; implementations must be thread-safe and must not block.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "stormguard/core/outcome.h"
#include "stormguard/core/policy_id.h"
#include "stormguard/core/time.h"

namespace stormguard {

class SuccessTally;

enum class EventKind {
  kAttemptStarted,  // an attempt is about to run (attempt = its number)
  kAttemptEnded,    // it returned (outcome, latency)
  kRetryScheduled,  // a retry will run after `wait`
  kGaveUp,          // the retry policy stopped (reason)
  kRejected,        // a guard refused the call (policy, reason)
  kStateChanged,    // a breaker changed state (from_state, to_state), a limiter its limit (reason), or
                    // an endpoint was ejected or readmitted (endpoint, EndpointState values)
  kTimedOut,        // a timeout fired and cancelled an attempt
  kHedgeLaunched,   // a hedged attempt was sent
  kFallback,        // a fallback produced the result
  kAbandoned,       // an attempt kept running after its timeout
  kChaosInjected,   // fault injection hit this call (reason = what it injected)
  kHedgeWon,        // a hedged attempt, not the primary, gave the call's answer (attempt = its
                    // number, outcome = its class, duration = since the primary started)
  kStateReported,   // a breaker's state as it starts reporting, once (to_state); not a
                    // transition: a state gauge exists before the first one
  kAdmitted,        // a guard let the call through: a program's own policy may report it (the
                    // library's guards do not, to keep the success path free of events)
};

inline constexpr int kEventKindCount = static_cast<int>(EventKind::kAdmitted) + 1;

std::string_view EventKindName(EventKind k) noexcept;

struct Event {
  EventKind kind;
  PolicyId policy = PolicyId::kNone;  // who reported it; PolicyName(policy) for people
  // kStateChanged: the state left and the state entered; kStateReported: the
  // state (to_state). Values of the reporting policy's own state enum.
  std::uint8_t from_state = 0;
  std::uint8_t to_state = 0;
  std::string_view scope{};  // the instance, set by a ScopedListener; "" when none
  // The replica the event is about (host:port), "" when none; valid only
  // during OnEvent, like `scope`.
  std::string_view endpoint{};
  std::string_view reason{};  // why, in words for people (a stop reason, a refusal); static
  TimePoint at{};
  int attempt = 0;
  OutcomeClass outcome = OutcomeClass::kSuccess;
  // kAttemptEnded: how many attempts `duration` stands for. 1: this one,
  // timed exactly; N > 1: a sample taken for N fast attempts; 0: not timed
  // (a fast attempt left out of the sample; `duration` is zero). It sits in
  // the padding after `outcome`: the event does not grow.
  std::uint32_t weight = 1;
  Duration duration = Duration::zero();  // latency of an attempt, or the wait of a retry
};

// How a listener needs attempts timed (kAttemptEnded's duration). A
// precise clock read costs 25-40 ns on a VM, about as much as a stage.
enum class AttemptTiming : std::uint8_t {
  // Every attempt, exactly (weight 1): for listeners that use each duration.
  kEvery,
  // Attempts that may be slow (the coarse clock ticked while they ran) are
  // timed exactly; of the fast ones, each thread times 1 in
  // kAttemptSampleEvery and reports it with that weight, the others with
  // weight 0. For histograms: unbiased, with an exact tail.
  kSampled,
};
inline constexpr std::uint32_t kAttemptSampleEvery = 16;

class Listener {
 public:
  virtual ~Listener() = default;
  virtual void OnEvent(const Event& event) noexcept = 0;
  // Asked once, when a pipeline or policy is built, never per call.
  virtual AttemptTiming attempt_timing() const noexcept { return AttemptTiming::kEvery; }
  // Whether it records kAttemptStarted, asked like attempt_timing. A
  // pipeline sends that event before every attempt only to listeners that
  // want it (a virtual call per call saved); they must still ignore it
  // when it comes (a policy reporting on its own may send it).
  virtual bool wants_attempt_started() const noexcept { return true; }
  // Where to count, instead of receiving, kAttemptEnded events of untimed
  // successes (weight 0), asked like attempt_timing; null (the default):
  // receive them. See stormguard/core/success_tally.h.
  virtual SuccessTally* success_tally() noexcept { return nullptr; }
};

// Reports `event` when there is a listener: every policy and stage reports
// through this, as a listener is always optional.
inline void Emit(Listener* listener, const Event& event) noexcept {
  if (listener != nullptr) listener->OnEvent(event);
}

// Forwards every event to `target` with `scope` set to this listener's
// name, unless a scope nearer the policy already set one (the most specific
// name wins). Listeners that keep scopes (CountingListener) keep views of
// the name: a ScopedListener must outlive them and the policies using it.
class ScopedListener final : public Listener {
 public:
  ScopedListener(std::string scope, Listener& target) : scope_(std::move(scope)), target_(target) {}
  ScopedListener(const ScopedListener&) = delete;
  ScopedListener& operator=(const ScopedListener&) = delete;

  std::string_view scope() const noexcept { return scope_; }
  AttemptTiming attempt_timing() const noexcept override { return target_.attempt_timing(); }
  bool wants_attempt_started() const noexcept override { return target_.wants_attempt_started(); }

  void OnEvent(const Event& event) noexcept override {
    if (!event.scope.empty()) return target_.OnEvent(event);
    Event scoped = event;
    scoped.scope = scope_;
    target_.OnEvent(scoped);
  }

 private:
  const std::string scope_;
  Listener& target_;
};

}  // namespace stormguard
