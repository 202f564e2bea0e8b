// stormguard/asio/asio_timers.h: a pipeline's waits on one Asio timer.
//
// The coroutine driver's AsyncTimers (async_timers.h has the contract): a
// backoff, a timeout or a bulkhead queue wait is a node in this object's own
// queue (a min-heap by deadline), and ONE Asio waitable timer of the
// executor is armed at the earliest deadline, so a waiting call holds a
// small pooled node, not a thread nor an Asio timer.
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
// The coroutine driver makes one per execution context by itself
// (TimersFor); UseTimers installs another, e.g. timers on virtual time:
// BasicAsioTimers<W, Traits> runs the same code over any chrono clock W
// whose now() counts from the epoch of `clock` (the stormguard Clock the
// pipeline uses).
//
// Nodes are pooled: a Schedule in steady state allocates nothing. Callbacks
// run on the executor. Destroy the timers after the executor's context has
// stopped, or once nothing is scheduled and the context has run every
// handler ready so far (a wait still armed then is aborted harmlessly).
//
// Thread safety: every method may be called from any thread (one mutex
// guards the queue and the Asio timer). The executor must not run two
// handlers at once (one io_context thread, or a strand).
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/basic_waitable_timer.hpp>
#include <asio/execution_context.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "stormguard/pipeline/async_timers.h"

namespace stormguard {

template <class WaitClock, class WaitTraits = asio::wait_traits<WaitClock>>
class BasicAsioTimers final : public AsyncTimers {
 public:
  BasicAsioTimers(asio::any_io_executor executor, Clock& clock) : clock_(clock), timer_(std::move(executor)) {}
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
  // Aborted means a re-arm replaced this wait (the new wait serves the
  // queue) or the timers are going away: `self` is not touched then. A wait
  // that completed just before a re-arm replaced it wakes like any other:
  // what is due runs once, as it leaves the queue.
  struct Wake {
    BasicAsioTimers* self;
    void operator()(const std::error_code& ec) const {
      if (!ec) self->OnWake();
    }
  };

  void OnWake() noexcept;
  // The rest run under mu_.
  void Arm(WaitPoint at) noexcept {
    timer_.expires_at(at);  // aborts the outstanding wait, if any
    timer_.async_wait(Wake{this});
    armed_at_ = at;
    ++arms_;
  }
  void Free(Node* n) noexcept {
    n->state = State::kFree;
    n->next = std::exchange(free_, n);
  }
  static bool Before(const Node* a, const Node* b) noexcept {
    return a->at < b->at || (a->at == b->at && a->ticket < b->ticket);
  }
  void Place(Node* n, std::size_t i) noexcept {
    heap_[i] = n;
    n->index = i;
  }
  void SiftUp(Node* n, std::size_t i) noexcept;
  void SiftDown(Node* n, std::size_t i) noexcept;
  void Unqueue(Node* n) noexcept;

  Clock& clock_;
  mutable std::mutex mu_;
  std::deque<Node> nodes_;  // stable addresses
  Node* free_ = nullptr;
  std::vector<Node*> heap_;  // queued nodes, earliest (by Before) first
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
  heap_.push_back(n);
  SiftUp(n, heap_.size() - 1);
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
  Node* due = nullptr;  // in deadline order
  Node** tail = &due;
  while (!heap_.empty() && heap_.front()->at <= now) {
    Node* n = heap_.front();
    Unqueue(n);
    n->state = State::kDue;
    n->next = nullptr;
    *tail = n;
    tail = &n->next;
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

template <class W, class Tr>
void BasicAsioTimers<W, Tr>::SiftUp(Node* n, std::size_t i) noexcept {
  while (i > 0 && Before(n, heap_[(i - 1) / 2])) {
    Place(heap_[(i - 1) / 2], i);
    i = (i - 1) / 2;
  }
  Place(n, i);
}

template <class W, class Tr>
void BasicAsioTimers<W, Tr>::SiftDown(Node* n, std::size_t i) noexcept {
  for (std::size_t child = 2 * i + 1; child < heap_.size(); child = 2 * i + 1) {
    if (child + 1 < heap_.size() && Before(heap_[child + 1], heap_[child])) ++child;
    if (!Before(heap_[child], n)) break;
    Place(heap_[child], i);
    i = child;
  }
  Place(n, i);
}

template <class W, class Tr>
void BasicAsioTimers<W, Tr>::Unqueue(Node* n) noexcept {
  Node* last = heap_.back();
  heap_.pop_back();
  if (last == n) return;
  const std::size_t i = n->index;
  if (i > 0 && Before(last, heap_[(i - 1) / 2])) {
    SiftUp(last, i);
  } else {
    SiftDown(last, i);
  }
}

}  // namespace stormguard
