// stormguard/pipeline/async_wait.h: one wait of an asynchronous call, without a thread.
//
// An AsyncWait ends once: when its time passes (kTime), when the call's
// stop token fires (kStop), or when its owner claims it for a reason of its
// own (a bulkhead slot was handed over). Whichever comes first wins and the
// others are disarmed, so `on_end` runs exactly once, or never after a
// successful Claim():
//
//   w.Start(step.timers(), until, ctx.stop, &OnEnd, &state);   // tail call
//   static void OnEnd(void* arg, AsyncWait::End why) noexcept;  // resumes the call
//
// A wait whose time has already passed, whose token has already fired, or
// that its owner claimed before Start (a slot handed over between queuing
// and arming), ends inside Start (kClaimed for the last). Reset() before
// each Start. on_end runs on the thread that ended the wait (a timer
// callback, whoever requested stop) and may continue the call inline.
//
// Thread safety: the three sources may race from any threads; a one-byte
// lock (wait_lock.h: a waiter sleeps, never spins) decides the winner
// (held only for a few stores, a stop callback's registration and a
// timer's scheduling: a std::mutex would cost 40 bytes in every waiting call). Claim() may be called under the owner's
// lock (it takes only this wait's lock); Disarm() after a successful Claim() must not be, since it waits out a timer
// callback that may be running.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <thread>

#include "stormguard/core/wait_lock.h"
#include "stormguard/pipeline/async_timers.h"

namespace stormguard {

class AsyncWait {
 public:
  enum class End { kTime, kStop, kClaimed };
  using OnEnd = void (*)(void* arg, End why) noexcept;

  AsyncWait() noexcept = default;
  AsyncWait(const AsyncWait&) = delete;
  AsyncWait& operator=(const AsyncWait&) = delete;

  void Start(AsyncTimers& timers, TimePoint until, std::stop_token stop, OnEnd on_end, void* arg);

  // Makes the wait ready for another Start (no source of the last one may
  // still be pending).
  void Reset() noexcept {
    state_ = State::kIdle;
    claimed_early_ = false;
  }
  // Ends the wait for the owner's reason. True when it was armed: on_end
  // will not run, and the caller continues the call after Disarm(). False
  // when it had already ended, or has not started yet: then the next Start
  // ends at once with kClaimed.
  bool Claim() noexcept;
  void Disarm() noexcept;

 private:
  enum class State : std::uint8_t { kIdle, kArming, kArmed, kEnded };
  struct Forward {
    AsyncWait* wait;
    void operator()() const noexcept { wait->OnStop(); }
  };
  static void OnTime(void* self) noexcept;
  void OnStop() noexcept;

  // In an order that leaves no padding but at the end, where an owner's
  // [[no_unique_address]] wait lets its own small fields go: every byte
  // here is held by each call waiting in a backoff.
  std::atomic<std::thread::id> arming_thread_{};
  AsyncTimers* timers_ = nullptr;
  AsyncTimerHandle timer_;
  std::optional<std::stop_callback<Forward>> on_stop_;
  OnEnd on_end_ = nullptr;
  void* arg_ = nullptr;
  WaitLock<std::uint8_t> mu_;
  State state_ = State::kIdle;
  bool stopped_while_arming_ = false;
  bool claimed_early_ = false;
};

}  // namespace stormguard
