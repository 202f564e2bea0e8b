// stormguard/hedge/hedge_session.h: one hedged call's decisions, with no
// waiting, no threads and no I/O.
//
// A HedgePolicy only answers "launch now, wait, or stop" for a state it is
// given. Around it a driver must also keep that state, choose the answer
// (the first success, or the first fatal failure; the last non-fatal one
// when nothing more may launch), say which attempts to stop, keep the retry
// budget's books, feed the LatencyTracker and report to the listener. A
// HedgeSession does all of that for one hedged call, so a driver (the
// blocking ExecuteHedged, the hedge stage's asynchronous form) only starts
// attempts, keeps one timer and waits. Each entry point is told the time
// and fills a HedgeActions with what the driver must do next:
//
//   HedgeSession session(policy, ctx);
//   HedgeActions a;
//   if (!session.Begin(clock.Now(), clock.CoarseNow(), a)) { ... one plain attempt, OnInlineEnd ... }
//   Do(a);  // start attempts [launch_first, launch_end), stop `cancel`, (re)arm or cancel the timer
//   // later, as things happen, each followed by Do(a):
//   session.OnTimer(clock.Now(), /*current=*/true, a);
//   session.OnAttemptEnd(i, status, clock.Now(), clock.CoarseNow(), a);
//   // once a.answered and (for a driver that waits for losers) in_flight() == 0:
//   session.Finish(answer_status, gave_up_downstream, clock.Now(), clock.CoarseNow());
//
// Attempt index i is 0 for the primary; its attempt number is the caller's
// ctx.attempt + i (hedges travel as retries). Events go to the policy's
// listener (policy "hedge"): kHedgeLaunched, kAttemptEnded, kHedgeWon,
// kGaveUp (hedge/hedge_driver.h lists what each carries). Budget protocol:
// OnRequestStart in Begin, OnRequestEnd in Finish, every finished attempt
// recorded (cancelled ones excepted), TryAcquireRetry per hedge (in the
// policy's Decide), OnRetryEnd when each hedge ends or never runs.
//
// Thread safety: none; the driver serializes every call (a lock, or one
// event loop). The policy, budget and tracker it uses are thread-safe.
#pragma once

#include <cstdint>

#include "stormguard/core/call_context.h"
#include "stormguard/core/status.h"
#include "stormguard/hedge/hedge_policy.h"

namespace stormguard {

// What a driver does after a HedgeSession call, in this order: cancel the
// current timer, arm the new one, stop the attempts in `cancel`, start the
// attempts in [launch_first, launch_end). `answered`: the call's answer was
// chosen in this step (the session's answer()).
struct HedgeActions {
  std::uint8_t launch_first = 0;
  std::uint8_t launch_end = 0;
  std::uint8_t cancel = 0;    // bit i: tell attempt i to stop
  bool cancel_timer = false;  // the current timer is no longer wanted
  bool arm_timer = false;     // replace the current timer by one at timer_at
  bool answered = false;
  TimePoint timer_at{};
};

// What an attempt's end meant to the call.
enum class HedgeVerdict : std::uint8_t {
  kLoser,      // the answer was already chosen: only booked
  kFailed,     // a non-fatal failure, kept as the answer should nothing succeed
  kSucceeded,  // the call's answer: a success
  kFatal,      // the call's answer: a fatal failure
};

class HedgeSession {
 public:
  static constexpr int kMaxAttempts = 1 + HedgeOptions::kMaxHedgedAttempts;

  HedgeSession() noexcept = default;  // empty: for reused storage; assign a real one before use
  HedgeSession(const HedgePolicy& policy, CallContext& caller) noexcept
      : policy_(&policy), caller_(&caller), base_attempt_(caller.attempt) {}

  const HedgePolicy& policy() const noexcept { return *policy_; }

  // Opens the budget's books and launches the primary (attempt 0). False:
  // no hedge can ever launch (HedgePolicy::CheckCall); the driver runs one
  // plain attempt on the caller's context and reports it with OnInlineEnd.
  bool Begin(TimePoint now, TimePoint coarse_now, HedgeActions& out) noexcept;
  // The plain attempt of a call that could not hedge ended.
  void OnInlineEnd(const Status& status, TimePoint start, TimePoint end, TimePoint coarse_now) noexcept;

  // The timer armed for the next decision fired. `current`: it is the one
  // last armed (a replaced timer may still fire; it only decides again).
  void OnTimer(TimePoint now, bool current, HedgeActions& out) noexcept;
  // Attempt i ended with `status` at `end`. Books and reports it; a winner
  // stops the others, a non-fatal failure launches the next hedge at once
  // (after the server's pushback, if it sent one).
  HedgeVerdict OnAttemptEnd(int i, const Status& status, TimePoint end, TimePoint coarse_now,
                            HedgeActions& out) noexcept;
  // Attempts [i, launch_end) of the last step could not start (a full
  // executor queue): they never ran, and nothing more launches.
  void OnLaunchRefused(int i, TimePoint coarse_now, HedgeActions& out) noexcept;
  // Attempt i was about to start after the answer came: it never ran.
  void OnAttemptSkipped(int i, TimePoint coarse_now) noexcept;
  // The caller cancelled while attempts ran: launch nothing more.
  void OnCallerCancelled(HedgeActions& out) noexcept;

  // Closes the books and settles the returned status: the caller's
  // downstream_gave_up when the answer's attempt saw one, the do-not-retry
  // mark when this layer gave up for the chain, and kGaveUp for a failure.
  void Finish(Status& answer, bool answer_downstream_gave_up, TimePoint now, TimePoint coarse_now) noexcept;

  // An attempt of an earlier call that reused this storage (a retry around
  // the hedge) ended: booked and reported, nothing decided.
  void OnStrayAttemptEnd(int attempt, bool hedge, const Status& status, Duration latency, TimePoint end,
                         TimePoint coarse_now) const noexcept;

  bool answered() const noexcept { return done_; }
  int in_flight() const noexcept { return in_flight_; }
  // The answer's attempt index: the winner, else the last non-fatal failure.
  int answer() const noexcept { return winner_ >= 0 ? winner_ : last_failure_; }
  int winner() const noexcept { return winner_; }  // -1: every attempt failed non-fatally
  int launched() const noexcept { return state_.launched; }
  int cancelled() const noexcept { return cancelled_; }
  HedgeStop stop() const noexcept { return stop_; }  // the last reason a hedge was held back, or kFatal
  TimePoint started(int i) const noexcept { return start_[i]; }

 private:
  void Pump(TimePoint now, HedgeActions& out) noexcept;
  void Launch(TimePoint now, HedgeActions& out) noexcept;
  void ArmTimer(TimePoint due, HedgeActions& out) noexcept;
  void Win(int i, OutcomeClass outcome, TimePoint end, TimePoint coarse_now, HedgeActions& out) noexcept;
  void Failed(int i, const Status& status, TimePoint end, HedgeActions& out) noexcept;
  void StopLaunching(HedgeActions& out) noexcept;
  void CheckDone(HedgeActions& out) noexcept;
  void EndRetry(int i, TimePoint coarse_now) const noexcept;
  void Report(EventKind kind, std::string_view reason, TimePoint at, int attempt, OutcomeClass outcome,
              Duration d) const noexcept;

  const HedgePolicy* policy_ = nullptr;
  CallContext* caller_ = nullptr;
  int base_attempt_ = 1;
  HedgeState state_;
  HedgeStop stop_ = HedgeStop::kNone;
  TimePoint start_[kMaxAttempts] = {};
  bool running_[kMaxAttempts] = {};
  int in_flight_ = 0;
  int winner_ = -1;
  int last_failure_ = -1;
  int cancelled_ = 0;
  bool launching_done_ = false;
  bool done_ = false;
  bool timer_armed_ = false;  // as the session sees it: armed and not yet fired or cancelled
  TimePoint timer_at_{};
};

}  // namespace stormguard
