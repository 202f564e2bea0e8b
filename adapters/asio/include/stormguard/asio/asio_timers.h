// stormguard/asio/asio_timers.h: a pipeline's waits on one Asio timer.
//
// The coroutine driver's AsyncTimers (async_timers.h has the contract): a
// backoff, a timeout or a bulkhead queue wait is a node in this object's own
// queue (timer_heap.h), and ONE Asio waitable timer of the executor is armed
// at the earliest deadline, so a waiting call holds a small pooled node, not
// a thread nor an Asio timer.
//
//   AsioTimers timers(io.get_executor(), Clock::Real());  // steady_clock
//   pipeline->ExecuteAsync(timers, ctx, attempt, done);
//
// Most waits end cancelled (the timeout of a call that succeeded), so a
// cancel only takes its node out of the queue and leaves the Asio timer
// armed: its wake finds nothing due and re-arms for the then-earliest node,
// or stays idle. Schedule re-arms only for a deadline earlier than the armed
// one. Once a deadline no later than a call's is armed, its schedule and
// cancel cost no system call and no reactor work. A wake reads the clock
// once and runs every node due then, in deadline order (ties in Schedule
// order); a node scheduled meanwhile waits for the next wake even if due.
//
// Outstanding work: the context counts a queued node as work, and never the
// armed Asio wait itself, so io_context::run() returns once the last wait is
// over (fired or cancelled) even though the Asio timer stays armed, and does
// not return while any wait is queued. The count adjusted is the one the
// Asio wait adds to: the context's scheduler (Asio's detail::scheduler, the
// same service its timers use on every context type but Windows' IOCP).
//
// The coroutine driver makes one per execution context by itself
// (TimersFor); UseTimers installs another, e.g. timers on virtual time:
// BasicAsioTimers<W, Traits> runs the same code over any chrono clock W
// whose now() counts from the epoch of `clock` (the stormguard Clock the
// pipeline uses).
//
// Nodes are pooled: a Schedule in steady state allocates nothing. Callbacks run
// on the executor. Destroy the timers after the executor's context has
// stopped, or once nothing is scheduled (a wait still armed then is aborted
// harmlessly).
//
// Thread safety: every method may be called from any thread (one lock,
// wait_lock.h, guards the queue and the Asio timer). The executor must not
// run two handlers at once (one io_context thread, or a strand).
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/basic_waitable_timer.hpp>
#include <asio/detail/scheduler.hpp>
#include <asio/execution/context.hpp>
#include <asio/query.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "stormguard/asio/timer_heap.h"
#include "stormguard/core/wait_lock.h"
#include "stormguard/pipeline/async_timers.h"

namespace stormguard {

template <class WaitClock, class WaitTraits = asio::wait_traits<WaitClock>>
class BasicAsioTimers final : public AsyncTimers {
 public:
  BasicAsioTimers(asio::any_io_executor executor, Clock& clock)
      : work_(asio::use_service<asio::detail::scheduler>(asio::query(executor, asio::execution::context))),
        clock_(clock),
        timer_(std::move(executor)) {}
  ~BasicAsioTimers() override {
    if (!heap_.empty()) work_.work_finished();
  }
  BasicAsioTimers(const BasicAsioTimers&) = delete;
  BasicAsioTimers& operator=(const BasicAsioTimers&) = delete;

  Clock& clock() const noexcept override { return clock_; }
  AsyncTimerHandle Schedule(TimePoint t, Callback callback, void* arg) noexcept override;
  bool Cancel(AsyncTimerHandle& h) noexcept override;

  // Nodes made so far (the pool's high-water mark).
  std::size_t nodes() const {
    std::lock_guard lock(mu_);
    return nodes_.size();
  }
  // How many times the Asio timer was armed (each re-arm counts).
  std::uint64_t arms() const {
    std::lock_guard lock(mu_);
    return arms_;
  }

 private:
  using WaitPoint = typename WaitClock::time_point;
  // kDue: taken by a wake, not run yet; kCancelled: cancelled while kDue.
  enum class State : std::uint8_t { kFree, kQueued, kDue, kCancelled, kRunning };
  struct Node {
    WaitPoint at{};
    std::uint64_t ticket = 0;  // Schedule's number: orders ties, names the handle
    Callback callback = nullptr;
    void* arg = nullptr;
    std::size_t index = 0;  // in heap_, while kQueued
    Node* next = nullptr;   // the free list, or a wake's due list
    State state = State::kFree;
  };
  struct Id {
    Node* node;
    std::uint64_t ticket;
  };
  static_assert(sizeof(Id) <= sizeof(AsyncTimerHandle::bytes));
  using Work = asio::detail::scheduler;
  // Every completion of a wait, fired or aborted, gives back the unit of
  // work Arm took away (the scheduler takes one as the handler ends).
  // Aborted means a re-arm replaced this wait (the new wait serves the
  // queue) or the timers are going away: `self` is not touched then. A wait
  // that completed just before a re-arm replaced it wakes like any other:
  // what is due runs once, as it leaves the queue.
  struct Wake {
    BasicAsioTimers* self;
    Work* work;
    void operator()(const std::error_code& ec) const {
      work->work_started();
      if (!ec) self->OnWake();
    }
  };

  void OnWake() noexcept;
  // The rest run under mu_.
  void Arm(WaitPoint at) noexcept {
    timer_.expires_at(at);  // aborts the outstanding wait, if any
    timer_.async_wait(Wake{this, &work_});
    work_.work_finished();  // an armed wait is not work: the queued nodes are (never 0 here)
    armed_at_ = at;
    ++arms_;
  }
  void Queue(Node* n) noexcept {
    if (heap_.empty()) work_.work_started();  // one unit while anything is queued
    heap_.Push(n);
  }
  void Unqueue(Node* n) noexcept {
    heap_.Remove(n);
    if (heap_.empty()) work_.work_finished();
  }
  void Free(Node* n) noexcept {
    n->state = State::kFree;
    n->next = std::exchange(free_, n);
  }

  Work& work_;  // the context's count of outstanding work
  Clock& clock_;
  mutable WaitLock<> mu_;
  std::deque<Node> nodes_;  // stable addresses
  Node* free_ = nullptr;
  asio_internal::TimerHeap<Node> heap_;  // queued nodes, earliest first
  std::uint64_t tickets_ = 0;
  std::uint64_t arms_ = 0;
  WaitPoint armed_at_ = WaitPoint::max();  // the deadline of the wait relied on; max: none
  bool waking_ = false;                    // a wake is running callbacks; it re-arms at its end
  asio::basic_waitable_timer<WaitClock, WaitTraits, asio::any_io_executor> timer_;  // last: aborts first
};

using AsioTimers = BasicAsioTimers<std::chrono::steady_clock>;

// The timers the coroutine driver uses on `executor`'s context: those
// installed with UseTimers, else an AsioTimers on Clock::Real() made on
// first use and owned by the context.
AsyncTimers& TimersFor(const asio::any_io_executor& executor);
// Installs `timers` (which must outlive the context's use of them) for
// every call the coroutine driver starts on `context` from now on.
void UseTimers(asio::execution_context& context, AsyncTimers& timers);

template <class W, class Tr>
AsyncTimerHandle BasicAsioTimers<W, Tr>::Schedule(TimePoint t, Callback callback, void* arg) noexcept {
  const auto at = WaitPoint(std::chrono::duration_cast<typename W::duration>(t.time_since_epoch()));
  std::lock_guard lock(mu_);
  Node* n = free_;
  if (n != nullptr) {
    free_ = n->next;
  } else {
    n = &nodes_.emplace_back();
  }
  *n = Node{.at = at, .ticket = ++tickets_, .callback = callback, .arg = arg, .state = State::kQueued};
  Queue(n);
  if (!waking_ && at < armed_at_) Arm(at);
  AsyncTimerHandle h;
  const Id id{n, n->ticket};
  std::memcpy(h.bytes, &id, sizeof id);
  h.armed = true;
  return h;
}

template <class W, class Tr>
bool BasicAsioTimers<W, Tr>::Cancel(AsyncTimerHandle& h) noexcept {
  if (!h.armed) return true;
  Id id;
  std::memcpy(&id, h.bytes, sizeof id);
  h = AsyncTimerHandle{};
  Node* n = id.node;
  std::unique_lock lock(mu_);
  // A running callback is on another thread (the contract forbids a cancel
  // from inside it): wait until it has returned.
  while (n->ticket == id.ticket && n->state == State::kRunning) {
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
  if (n->ticket != id.ticket || n->state == State::kFree) return false;  // it ran
  if (n->state == State::kQueued) {
    Unqueue(n);  // the Asio timer stays armed: its wake finds nothing due
    Free(n);
  } else {
    n->state = State::kCancelled;  // on a wake's due list: the wake frees it
  }
  return true;
}

template <class W, class Tr>
void BasicAsioTimers<W, Tr>::OnWake() noexcept {
  std::unique_lock lock(mu_);
  armed_at_ = WaitPoint::max();
  waking_ = true;
  const WaitPoint now = W::now();  // the clock Asio fired on, read once
  Node* due = nullptr;
  for (Node** tail = &due; !heap_.empty() && heap_.front()->at <= now; tail = &(*tail)->next) {
    *tail = heap_.front();
    Unqueue(*tail);  // this handler is work until it returns
    (*tail)->state = State::kDue;
    (*tail)->next = nullptr;
  }
  while (due != nullptr) {
    Node* n = std::exchange(due, due->next);
    if (n->state == State::kCancelled) {
      Free(n);
      continue;
    }
    n->state = State::kRunning;
    lock.unlock();
    n->callback(n->arg);  // may continue a call, and Schedule again
    lock.lock();
    Free(n);
  }
  waking_ = false;
  if (!heap_.empty() && heap_.front()->at < armed_at_) Arm(heap_.front()->at);
}

}  // namespace stormguard
