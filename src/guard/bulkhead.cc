#include "stormguard/guard/bulkhead.h"

#include "stormguard/core/duration_format.h"
#include "stormguard/core/validation.h"

namespace stormguard {

// A caller blocked in Acquire; lives on its stack, linked into the queue
// while it waits. `wake` fires when a slot is handed to it (granted) or when
// its caller's stop token fires.
struct Bulkhead::Waiter : QueuedWaiter {
  Waiter() noexcept {
    on_grant = [](QueuedWaiter* w) noexcept {
      static_cast<Waiter*>(w)->wake.request_stop();  // under the lock: it may not return before
      return false;
    };
  }
  std::stop_source wake;
};

BulkheadPermit& BulkheadPermit::operator=(BulkheadPermit&& other) noexcept {
  if (this != &other) {
    Release();
    owner_ = std::exchange(other.owner_, nullptr);
    stripe_ = other.stripe_;
    abandoned_ = std::exchange(other.abandoned_, false);
  }
  return *this;
}

void BulkheadPermit::MarkAbandoned(TimePoint now) noexcept {
  if (owner_ == nullptr || abandoned_) return;
  abandoned_ = true;
  owner_->abandoned_.fetch_add(1, std::memory_order_relaxed);
  owner_->abandoned_total_.fetch_add(1, std::memory_order_relaxed);
  Emit(owner_->o_.listener, {.kind = EventKind::kAbandoned,
                             .policy = PolicyId::kBulkhead,
                             .reason = "abandoned work holds its slot",
                             .at = now});
}

std::vector<std::string> BulkheadOptions::Validate() const {
  Validator v;
  v.Check(max_concurrent >= 1, "max_concurrent", "must be at least 1");
  v.Check(max_wait >= Duration::zero(), "max_wait", "must not be negative");
  v.Check(stripes >= 0 && stripes <= kMaxStripes, "stripes", "must be 0 (automatic) or in [1, 64]");
  return std::move(v).errors();
}

Result<std::shared_ptr<Bulkhead>> Bulkhead::Create(const BulkheadOptions& options) {
  Status s = ValidationStatus("bulkhead options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<Bulkhead>(new Bulkhead(options));
}

// A stripe holds at least this many slots when the count is picked
// automatically: fewer would send callers looking in other stripes often.
constexpr std::int64_t kMinSlotsPerStripe = 8;

Bulkhead::Bulkhead(const BulkheadOptions& o) : o_(o) {
  const int n = ResolveCapacityStripes(o.stripes, o.max_concurrent, kMinSlotsPerStripe);
  stripes_ = std::make_unique<Stripe[]>(static_cast<std::size_t>(n));
  stripe_mask_ = static_cast<std::size_t>(n) - 1;
  for (int i = 0; i < n; ++i) stripes_[i].capacity = o.max_concurrent / n + (i < o.max_concurrent % n ? 1 : 0);
}

// The loads and read-modify-writes on the stripes and waiting_ are seq_cst
// on purpose: a waiter publishes itself (waiting_++) then looks for a slot,
// a releaser frees a slot (in_use--) then looks for waiters. Sequential
// consistency guarantees at least one of them sees the other, so a freed
// slot never sits idle while someone sleeps.
std::size_t Bulkhead::TryTake() noexcept {
  const std::size_t home = ThreadStripe();
  for (std::size_t k = 0; k <= stripe_mask_; ++k) {
    const std::size_t i = (home + k) & stripe_mask_;
    Stripe& stripe = stripes_[i];
    int cur = stripe.in_use.load(std::memory_order_seq_cst);
    while (cur < stripe.capacity) {
      if (stripe.in_use.compare_exchange_weak(cur, cur + 1, std::memory_order_seq_cst)) return i;
      if (k == 0) MoveThreadStripe();  // another thread shares this stripe: spread out
    }
  }
  return kNoSlot;
}

int Bulkhead::InUse() const noexcept {
  int sum = 0;
  for (std::size_t i = 0; i <= stripe_mask_; ++i) sum += stripes_[i].in_use.load(std::memory_order_relaxed);
  return sum;
}

void Bulkhead::HandOffToWaiters() {
  QueuedWaiter* resume = nullptr;  // granted waiters that continue outside the lock
  {
    std::lock_guard lock(mu_);
    // A caller on the lock-free path may have taken the slot meanwhile; then
    // the waiters keep waiting for the next release.
    while (head_ != nullptr) {
      const std::size_t stripe = TryTake();
      if (stripe == kNoSlot) break;
      QueuedWaiter* w = head_;
      Unlink(w);
      w->stripe = stripe;
      w->granted = true;
      if (w->on_grant(w)) w->next = std::exchange(resume, w);
    }
  }
  while (resume != nullptr) {
    QueuedWaiter* w = std::exchange(resume, resume->next);
    w->next = nullptr;
    w->resume(w);
  }
}

Result<BulkheadPermit> Bulkhead::AcquireOrQueue(TimePoint now, const std::stop_token& stop, QueuedWaiter& w) {
  if (stop.stop_requested()) {
    return Status::Cancelled("bulkhead: cancelled before waiting").WithSource(kPolicy);
  }
  if (const std::size_t stripe = TryTake(); stripe != kNoSlot) return BulkheadPermit(this, stripe);
  if (o_.max_wait <= Duration::zero()) return Reject(now, Duration::zero());
  std::lock_guard lock(mu_);
  w.granted = false;
  Enqueue(&w);
  // A slot freed before we were queued would find nobody to hand to.
  if (const std::size_t stripe = TryTake(); stripe != kNoSlot) {
    Unlink(&w);
    return BulkheadPermit(this, stripe);
  }
  return BulkheadPermit();
}

Result<BulkheadPermit> Bulkhead::EndWait(QueuedWaiter& w, TimePoint start, TimePoint now, bool stopped) {
  {
    std::unique_lock lock(mu_);
    if (!w.granted) {
      Unlink(&w);
    } else {
      lock.unlock();
      BulkheadPermit permit(this, w.stripe);
      if (!stopped) return permit;
      // Granted as the caller gave up: the destructor passes the slot on.
    }
  }
  if (stopped) {
    return Status::Cancelled("bulkhead: wait for a slot cancelled after " + FormatDuration(now - start))
        .WithSource(kPolicy);
  }
  return Reject(now, now - start);
}

void Bulkhead::Enqueue(QueuedWaiter* w) noexcept {
  w->prev = tail_;
  (tail_ != nullptr ? tail_->next : head_) = w;
  tail_ = w;
  waiting_.fetch_add(1, std::memory_order_seq_cst);
}

void Bulkhead::Unlink(QueuedWaiter* w) noexcept {
  (w->prev != nullptr ? w->prev->next : head_) = w->next;
  (w->next != nullptr ? w->next->prev : tail_) = w->prev;
  w->prev = w->next = nullptr;
  waiting_.fetch_sub(1, std::memory_order_seq_cst);
}

Status Bulkhead::Reject(TimePoint now, Duration waited) {
  rejected_.fetch_add(1, std::memory_order_relaxed);
  Emit(o_.listener, {.kind = EventKind::kRejected,
                     .policy = PolicyId::kBulkhead,
                     .reason = "bulkhead full",
                     .at = now,
                     .duration = waited});
  return Status::ResourceExhausted("bulkhead full: " + std::to_string(InUse()) + "/" +
                                   std::to_string(o_.max_concurrent) + " in use, waited " + FormatDuration(waited))
      .WithSource(kPolicy);
}

Result<BulkheadPermit> Bulkhead::TryAcquire(TimePoint now) {
  if (const std::size_t stripe = TryTake(); stripe != kNoSlot) return BulkheadPermit(this, stripe);
  return Reject(now, Duration::zero());
}

// The asynchronous stage's protocol (AcquireOrQueue, then EndWait), with a
// sleep on the clock as the wait.
Result<BulkheadPermit> Bulkhead::Acquire(Clock& clock, std::stop_token stop) {
  if (stop.stop_requested()) {
    return Status::Cancelled("bulkhead: cancelled before waiting").WithSource(kPolicy);
  }
  const TimePoint start = clock.Now();
  Waiter w;
  Result<BulkheadPermit> now = AcquireOrQueue(start, stop, w);
  if (!now.ok() || now->valid()) return now;
  {
    std::stop_callback forward(stop, [&w] { w.wake.request_stop(); });
    clock.SleepUntil(SaturatingAdd(start, o_.max_wait), w.wake.get_token());
  }
  return EndWait(w, start, clock.Now(), stop.stop_requested());
}

BulkheadStats Bulkhead::stats() const noexcept {
  return {.in_use = InUse(),
          .waiting = waiting_.load(std::memory_order_relaxed),
          .abandoned = abandoned_.load(std::memory_order_relaxed),
          .rejected = rejected_.load(std::memory_order_relaxed),
          .abandoned_total = abandoned_total_.load(std::memory_order_relaxed)};
}

}  // namespace stormguard
