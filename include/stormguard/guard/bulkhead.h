// stormguard/guard/bulkhead.h: at most N calls at once, each holding a slot.
//
// A slot is a BulkheadPermit (RAII, movable); it is given back when the
// permit is destroyed. TryAcquire never waits; Acquire waits up to
// `max_wait` for a slot. A freed slot goes to the oldest waiter, unless a
// caller on the lock-free path takes it first (no strict fairness against
// callers that arrive just as a slot frees).
//
//   auto bulkhead = Bulkhead::Create({.max_concurrent = 10, .max_wait = 50ms});
//   Result<BulkheadPermit> permit = (*bulkhead)->Acquire(clock, stop);
//   if (!permit.ok()) return permit.status();
//   // RESOURCE_EXHAUSTED "bulkhead full: 10/10 in use, waited 50ms" [bulkhead]
//
// Abandoned work: when a caller gives up on an attempt that is still running
// (its timeout fired but the callee ignores cancellation), the driver calls
// permit.MarkAbandoned(now) and hands the permit to the running work. The
// slot stays taken until that work really ends and drops the permit: the
// bulkhead keeps counting what still consumes the protected resource
// (stats().abandoned now, abandoned_total ever), instead of letting new
// calls pile onto a dependency that is still busy with the old ones.
//
// Waiting: Acquire sleeps with clock.SleepUntil(start + max_wait, token),
// where the token fires when a released slot is handed to this waiter or
// when the caller's `stop` fires. On Clock::Real() that is a
// condition_variable_any wait; tests drive it with a ManualClock in
// kBlockOnSleep mode (Advance() past the deadline times the waiter out). In
// kAdvanceOnSleep mode a sleep jumps to its deadline at once, so a waiter
// that finds no free slot times out immediately.
//
// Striping: one shared in-use count would be written by every call on every
// core, and two threads would get less done than one. The slots are
// therefore split into stripes (one per hardware thread, each on its own
// cache line, at least 8 slots each; a bulkhead under 16 slots stays one
// stripe). A caller takes a slot from its thread's stripe and, when that
// is full, from any other: the bulkhead never admits more than
// max_concurrent and refuses only after seeing every stripe full. Like any
// refusal that races with a release, a refusal may miss a slot freed in a
// stripe it had already looked at.
//
// Thread safety: every method is thread-safe. TryAcquire and a release with
// nobody waiting are lock-free (one CAS / one atomic decrement on the
// thread's stripe) and allocate nothing; waiting and handing a slot to a
// waiter take a mutex, and a wait allocates once (the waiter's
// std::stop_source).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/striped_counter.h"
#include "stormguard/core/time.h"

namespace stormguard {

class Bulkhead;

// One slot of a bulkhead. Moving transfers the slot; destroying (or
// Release()) gives it back.
class BulkheadPermit {
 public:
  BulkheadPermit() noexcept = default;
  BulkheadPermit(BulkheadPermit&& other) noexcept
      : owner_(std::exchange(other.owner_, nullptr)),
        stripe_(other.stripe_),
        abandoned_(std::exchange(other.abandoned_, false)) {}
  BulkheadPermit& operator=(BulkheadPermit&& other) noexcept;
  BulkheadPermit(const BulkheadPermit&) = delete;
  BulkheadPermit& operator=(const BulkheadPermit&) = delete;
  ~BulkheadPermit() { Release(); }

  bool valid() const noexcept { return owner_ != nullptr; }
  bool abandoned() const noexcept { return abandoned_; }

  // The caller gave up but the work goes on: the slot stays taken until
  // this permit is destroyed, and is counted as abandoned meanwhile.
  void MarkAbandoned(TimePoint now) noexcept;

  void Release() noexcept;  // inline, below Bulkhead

 private:
  friend class Bulkhead;
  BulkheadPermit(Bulkhead* owner, std::size_t stripe) noexcept : owner_(owner), stripe_(stripe) {}

  Bulkhead* owner_ = nullptr;
  std::size_t stripe_ = 0;  // where the slot came from, and goes back to
  bool abandoned_ = false;
};

struct BulkheadOptions {
  int max_concurrent = 25;               // >= 1 (Resilience4j's default)
  Duration max_wait = Duration::zero();  // >= 0; 0 refuses at once when full
  Listener* listener = nullptr;          // kRejected, kAbandoned; may be null
  // Stripes of the in-use count (see Striping): 0 = automatic, 1 = a single
  // shared count, else rounded up to a power of two (at most 64) and lowered
  // until every stripe has a slot.
  int stripes = 0;

  std::vector<std::string> Validate() const;
};

struct BulkheadStats {
  int in_use = 0;             // slots taken, abandoned ones included
  int waiting = 0;            // callers blocked in Acquire
  int abandoned = 0;          // slots held by work whose caller gave up
  std::int64_t rejected = 0;  // refusals: full, or the wait timed out
  std::int64_t abandoned_total = 0;
};

// Every permit must be gone before its Bulkhead is destroyed.
class Bulkhead {
 public:
  static constexpr std::string_view kPolicy = "bulkhead";

  // Validates; INVALID_ARGUMENT names every bad field. Shared: one bulkhead
  // guards a destination for every pipeline and thread that calls it.
  static Result<std::shared_ptr<Bulkhead>> Create(const BulkheadOptions& options);

  Bulkhead(const Bulkhead&) = delete;
  Bulkhead& operator=(const Bulkhead&) = delete;
  const BulkheadOptions& options() const noexcept { return o_; }
  int stripes() const noexcept { return static_cast<int>(stripe_mask_ + 1); }

  // A free slot now, or RESOURCE_EXHAUSTED "bulkhead full: ..., waited 0s".
  Result<BulkheadPermit> TryAcquire(TimePoint now);
  // TryAcquire's fast path without a Result: a free slot, or an empty
  // permit when every stripe is full, reporting nothing (ask TryAcquire
  // then for the refusal). Inline: a slot of the thread's own stripe costs
  // no call; a full or contended one takes TryTake's search.
  BulkheadPermit TryTakeSlot() noexcept {
    const std::size_t home = ThreadStripe() & stripe_mask_;
    Stripe& stripe = stripes_[home];
    int cur = stripe.in_use.load(std::memory_order_seq_cst);
    if (cur < stripe.capacity && stripe.in_use.compare_exchange_strong(cur, cur + 1, std::memory_order_seq_cst))
        [[likely]] {
      return BulkheadPermit(this, home);
    }
    const std::size_t taken = TryTake();
    return taken != kNoSlot ? BulkheadPermit(this, taken) : BulkheadPermit();
  }

  // Waits up to options().max_wait for a slot. RESOURCE_EXHAUSTED when the
  // wait ends without one, CANCELLED when `stop` fires first.
  Result<BulkheadPermit> Acquire(Clock& clock, std::stop_token stop = {});

  // A place in the wait queue for a caller that must not block (the
  // pipeline's asynchronous form), kept in the caller's own storage.
  struct QueuedWaiter {
    // Runs under the bulkhead's lock when a slot is handed over: true asks
    // for `resume` to run once the lock is released (on the releasing
    // thread). Both must be short and must not call back into the bulkhead
    // under the lock.
    bool (*on_grant)(QueuedWaiter* w) noexcept = nullptr;
    void (*resume)(QueuedWaiter* w) noexcept = nullptr;

   private:
    friend class Bulkhead;
    bool granted = false;
    std::size_t stripe = 0;  // of the slot handed to it
    QueuedWaiter* prev = nullptr;
    QueuedWaiter* next = nullptr;
  };
  // Acquire without blocking: a permit now; or an empty permit, and `w` is
  // queued until a slot is handed to it (on_grant) or EndWait() takes it
  // out; or, as Acquire, CANCELLED (`stop` already fired) or
  // RESOURCE_EXHAUSTED (full, max_wait is zero). Every driver waits through
  // this: Acquire sleeps on its clock, the asynchronous stage arms a timer.
  Result<BulkheadPermit> AcquireOrQueue(TimePoint now, const std::stop_token& stop, QueuedWaiter& w);
  // The answer to a queued wait that began at `start` and ended at `now`
  // (a slot handed over, the time up, or the caller's stop: `stopped`): the
  // slot handed over, or the failure as Acquire gives it. A slot handed
  // over as the caller stopped goes on to the next waiter. `w` is out of
  // the queue afterwards.
  Result<BulkheadPermit> EndWait(QueuedWaiter& w, TimePoint start, TimePoint now, bool stopped);

  BulkheadStats stats() const noexcept;

 private:
  friend class BulkheadPermit;
  struct Waiter;

  struct alignas(kCacheLineSize) Stripe {
    std::atomic<int> in_use{0};
    int capacity = 0;
  };

  explicit Bulkhead(const BulkheadOptions& o);

  // The stripe a slot was taken from, or kNoSlot when every stripe is full.
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  std::size_t TryTake() noexcept;
  // seq_cst like TryTake's (bulkhead.cc): a releaser and a new waiter each see the other.
  void Give(std::size_t stripe) noexcept {
    stripes_[stripe].in_use.fetch_sub(1, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst) > 0) [[unlikely]]
      HandOffToWaiters();
  }
  int InUse() const noexcept;
  void HandOffToWaiters();
  Status Reject(TimePoint now, Duration waited);
  void Enqueue(QueuedWaiter* w) noexcept;
  void Unlink(QueuedWaiter* w) noexcept;

  BulkheadOptions o_;
  std::unique_ptr<Stripe[]> stripes_;
  std::size_t stripe_mask_;
  std::atomic<int> waiting_{0};
  std::atomic<int> abandoned_{0};
  std::atomic<std::int64_t> rejected_{0};
  std::atomic<std::int64_t> abandoned_total_{0};

  std::mutex mu_;  // guards the waiter queue
  QueuedWaiter* head_ = nullptr;
  QueuedWaiter* tail_ = nullptr;
};

inline void BulkheadPermit::Release() noexcept {
  if (owner_ == nullptr) return;
  if (abandoned_) [[unlikely]]
    owner_->abandoned_.fetch_sub(1, std::memory_order_relaxed);
  std::exchange(owner_, nullptr)->Give(stripe_);
  abandoned_ = false;
}

}  // namespace stormguard
