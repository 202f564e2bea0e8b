// stormguard/asio/asio_timers.h: a pipeline's waits as Asio waitable timers.
//
// The coroutine driver's AsyncTimers (async_timers.h has the contract): a
// backoff, a timeout or a bulkhead queue wait is an async_wait on a timer of
// the executor, so a waiting call holds a pooled timer node, not a thread.
//
//   AsioTimers timers(io.get_executor());          // steady_clock, Clock::Real()
//   pipeline->ExecuteAsync(timers, ctx, attempt, done);
//
// The coroutine driver makes one per execution context by itself
// (TimersFor); UseTimers installs another, e.g. timers on virtual time:
// BasicAsioTimers<W, Traits> runs the same code over any chrono clock W
// whose now() counts from the epoch of `clock` (the stormguard Clock the
// pipeline uses).
//
// Nodes are pooled: a Schedule in steady state allocates nothing (the node
// is reused, Asio recycles the wait's handler memory per thread). Callbacks
// run on the executor. Destroy the timers after the executor's context has
// stopped or when no wait is pending.
//
// Thread safety: every method may be called from any thread (one mutex
// guards the nodes and the Asio timer objects). The executor must not run
// two handlers at once (one io_context thread, or a strand).
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

#include "stormguard/pipeline/async_timers.h"

namespace stormguard {

template <class WaitClock, class WaitTraits = asio::wait_traits<WaitClock>>
class BasicAsioTimers final : public AsyncTimers {
 public:
  BasicAsioTimers(asio::any_io_executor executor, Clock& clock) : executor_(std::move(executor)), clock_(clock) {}
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

 private:
  enum class State { kFree, kArmed, kCancelled, kRunning };
  using Timer = asio::basic_waitable_timer<WaitClock, WaitTraits, asio::any_io_executor>;
  struct Node {
    explicit Node(const asio::any_io_executor& ex) : timer(ex) {}
    Timer timer;
    State state = State::kFree;
    std::uint64_t generation = 0;
    Callback callback = nullptr;
    void* arg = nullptr;
    Node* next_free = nullptr;
  };
  struct Fired {
    BasicAsioTimers* self;
    Node* node;
    void operator()(const std::error_code&) const { self->OnFired(node); }
  };
  struct Id {
    Node* node;
    std::uint64_t generation;
  };
  static_assert(sizeof(Id) <= sizeof(AsyncTimerHandle::bytes));

  void OnFired(Node* n) noexcept;
  void Free(Node* n) noexcept {  // under mu_
    n->state = State::kFree;
    ++n->generation;
    n->next_free = std::exchange(free_, n);
  }

  asio::any_io_executor executor_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::deque<Node> nodes_;  // stable addresses
  Node* free_ = nullptr;
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
  const auto at = typename W::time_point(std::chrono::duration_cast<typename W::duration>(t.time_since_epoch()));
  std::lock_guard lock(mu_);
  Node* n = free_;
  if (n != nullptr) {
    free_ = n->next_free;
  } else {
    n = &nodes_.emplace_back(executor_);
  }
  n->state = State::kArmed;
  n->callback = callback;
  n->arg = arg;
  n->timer.expires_at(at);
  n->timer.async_wait(Fired{this, n});
  AsyncTimerHandle h;
  const Id id{n, n->generation};
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
  std::unique_lock lock(mu_);
  // A running callback is on another thread (the contract forbids a cancel
  // from inside it): wait until it has returned.
  while (id.node->generation == id.generation && id.node->state == State::kRunning) {
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
  if (id.node->generation != id.generation) return false;  // it ran
  id.node->state = State::kCancelled;
  id.node->timer.cancel();  // frees the node promptly (OnFired with operation_aborted)
  return true;
}

template <class W, class Tr>
void BasicAsioTimers<W, Tr>::OnFired(Node* n) noexcept {
  {
    std::lock_guard lock(mu_);
    if (n->state != State::kArmed) return Free(n);  // cancelled
    n->state = State::kRunning;
  }
  n->callback(n->arg);  // may continue a call, and Schedule again
  std::lock_guard lock(mu_);
  Free(n);
}

}  // namespace stormguard
