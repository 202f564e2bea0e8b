// CircuitBreaker's own clock: the automatic moves out of open and half-open,
// by Tick (a driver's poll) or by the timer an open period arms, and the
// hand-off that keeps the listener's report of such a move off the timer
// thread.
#include <memory>
#include <new>

#include "stormguard/exec/executor.h"
#include "stormguard/guard/circuit_breaker.h"

namespace stormguard {

void CircuitBreaker::Tick(TimePoint now) noexcept {
  switch (state()) {
    case CircuitState::kOpen:
      if (o_.automatic_transition_from_open_to_half_open && OpenWaitOver(now)) {
        MoveIfDue(CircuitState::kOpen, CircuitState::kHalfOpen, now);
      }
      return;
    case CircuitState::kHalfOpen:
      if (HalfOpenExpired(now)) MoveIfDue(CircuitState::kHalfOpen, CircuitState::kOpen, now);
      return;
    default: return;
  }
}

void CircuitBreaker::ArmOpenTimerLocked(TimePoint until) noexcept {
  if (!o_.automatic_transition_from_open_to_half_open || o_.timers == nullptr) return;
  // Allocated once per open period, off the call path. Without memory the
  // next call after the wait still moves the circuit.
  std::weak_ptr<CircuitBreaker>* arg = nullptr;
  try {  // plain new, not nothrow new: a program that replaces operator new pairs it with its delete
    arg = new std::weak_ptr<CircuitBreaker>(self_);
  } catch (const std::bad_alloc&) {
    return;
  }
  open_timer_ = o_.timers->Schedule(until, &CircuitBreaker::OnOpenTimer, arg);
  if (!open_timer_.armed()) {  // an infinite wait: nothing to arm
    delete arg;
    return;
  }
  open_timer_arg_ = arg;
}

void CircuitBreaker::DisarmOpenTimerLocked() noexcept {
  // TryCancel, not Cancel: a firing timer may be waiting for mu_ (or be this
  // very call's own, from OnOpenTimer). One that fired frees its argument.
  if (TimerService::TryCancel(open_timer_)) delete open_timer_arg_;
  open_timer_ = TimerHandle();
  open_timer_arg_ = nullptr;
}

// On the timer's thread, which must not run user code: the move reports to
// the listener, so a worker makes it.
void CircuitBreaker::OnOpenTimer(void* self) noexcept {
  if (TimerService::OnBackgroundThread() &&
      Executor::ForTimerCallbacks().TrySubmit([self] { HalfOpenWhenDue(self); })) {
    return;
  }
  HalfOpenWhenDue(self);  // in RunDue, or the queue is full: move here
}

void CircuitBreaker::HalfOpenWhenDue(void* self) noexcept {
  const std::unique_ptr<std::weak_ptr<CircuitBreaker>> weak(static_cast<std::weak_ptr<CircuitBreaker>*>(self));
  // MoveIfDue checks the state and the wait again under the lock: the
  // circuit may have left open meanwhile, or begun another open period.
  if (const std::shared_ptr<CircuitBreaker> cb = weak->lock()) {
    cb->MoveIfDue(CircuitState::kOpen, CircuitState::kHalfOpen, cb->o_.timers->clock().Now());
  }
}

TimePoint CircuitBreaker::NextTick() const noexcept {
  switch (state()) {
    case CircuitState::kOpen: return o_.automatic_transition_from_open_to_half_open ? OpenUntil() : kInfiniteFuture;
    case CircuitState::kHalfOpen: return TimePoint(Duration(half_open_until_ns_.load(std::memory_order_relaxed)));
    default: return kInfiniteFuture;
  }
}

}  // namespace stormguard
