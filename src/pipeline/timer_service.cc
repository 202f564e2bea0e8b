#include "stormguard/pipeline/timer_service.h"

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace timer_internal {

enum State : std::uint8_t { kFree, kArmed, kFiring, kFired };

struct Link {
  Link* prev = this;
  Link* next = this;
};

struct Node : Link {
  TimePoint deadline{};
  TimerService::Callback callback = nullptr;
  void* arg = nullptr;
  TimerService::Shard* shard = nullptr;
  Node* chain = nullptr;  // the free list, or the batch being fired
  std::atomic<std::uint8_t> state{kFree};
};

}  // namespace timer_internal

using timer_internal::Link;
using timer_internal::Node;

namespace {

constexpr std::size_t kBuckets = 256;  // one revolution = 256 ticks
constexpr std::size_t kBlockSize = 64;

void Unlink(Link* n) noexcept {
  n->prev->next = n->next;
  n->next->prev = n->prev;
}

void InsertAfter(Link* head, Link* n) noexcept {
  n->prev = head;
  n->next = head->next;
  head->next->prev = n;
  head->next = n;
}

// Live threads get the lowest free slot numbers (like file descriptors), so
// any two live threads land in different shards as long as there are at
// least as many shards as threads, however many threads came and went.
class ThreadSlots {
 public:
  static constexpr std::uint32_t kSlots = 1024;

  std::uint32_t Acquire() {
    std::lock_guard lock(mu_);
    for (std::uint32_t i = 0; i < kSlots; ++i) {
      if (!used_[i]) {
        used_[i] = true;
        return i;
      }
    }
    return kSlots + overflow_++ % kSlots;  // all taken: share, and never release
  }
  void Release(std::uint32_t slot) {
    std::lock_guard lock(mu_);
    if (slot < kSlots) used_[slot] = false;
  }

 private:
  std::mutex mu_;
  std::bitset<kSlots> used_;
  std::uint32_t overflow_ = 0;
};

ThreadSlots& Slots() {
  static ThreadSlots* const slots = new ThreadSlots;  // leaked: threads exit during static destruction
  return *slots;
}

struct ThreadSlot {
  std::uint32_t index = Slots().Acquire();
  ~ThreadSlot() { Slots().Release(index); }
};

void Pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

// One wheel. Everything but `locked` is guarded by it; node states are
// written under it too, except the kFiring -> kFired store after a callback.
struct alignas(64) TimerService::Shard {
  std::atomic<bool> locked{false};
  std::int64_t cursor = 0;  // buckets of ticks before this one hold nothing due
  std::size_t armed = 0;
  Node* free = nullptr;
  std::array<Link, kBuckets> buckets;
  std::vector<std::unique_ptr<Node[]>> blocks;

  void Lock() noexcept {
    // Hold times are a few dozen instructions; yield after a short spin so
    // a preempted holder on an oversubscribed machine gets to run.
    for (int spins = 0; locked.exchange(true, std::memory_order_acquire);) {
      while (locked.load(std::memory_order_relaxed)) {
        if (++spins < 64) {
          Pause();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void Unlock() noexcept { locked.store(false, std::memory_order_release); }

  void Grow() {
    auto block = std::make_unique<Node[]>(kBlockSize);
    for (std::size_t i = 0; i < kBlockSize; ++i) Release(&block[i]);
    blocks.push_back(std::move(block));
  }
  Node* Allocate() {
    if (free == nullptr) Grow();
    Node* n = free;
    free = n->chain;
    n->shard = this;
    return n;
  }
  void Release(Node* n) noexcept {
    n->state.store(timer_internal::kFree, std::memory_order_relaxed);
    n->chain = free;
    free = n;
  }
};

std::vector<std::string> TimerServiceOptions::Validate() const {
  Validator v;
  v.Check(tick > Duration::zero(), "tick", "must be positive");
  v.Check(tick <= std::chrono::seconds(1), "tick", "must be at most 1s");
  v.Check(shards >= 0 && shards <= 1024, "shards", "must be in [0, 1024]");
  v.Check(idle_ticks_before_park >= 1, "idle_ticks_before_park", "must be at least 1");
  return std::move(v).errors();
}

Result<std::unique_ptr<TimerService>> TimerService::Create(Clock& clock, TimerServiceOptions options) {
  Status s = ValidationStatus("timer service options", options.Validate());
  if (!s.ok()) return s;
  return std::unique_ptr<TimerService>(new TimerService(clock, options));
}

TimerService& TimerService::Default() {
  // Leaked on purpose: calls may still arm timers while statics are destroyed.
  static TimerService* const service = new TimerService(Clock::Real(), TimerServiceOptions{});
  return *service;
}

TimerService::TimerService(Clock& clock, const TimerServiceOptions& o)
    : clock_(clock),
      tick_shift_(std::bit_width(static_cast<std::uint64_t>(o.tick.count() - 1))),
      idle_ticks_before_park_(o.idle_ticks_before_park) {
  std::size_t n = static_cast<std::size_t>(o.shards);
  if (n == 0) n = std::clamp<std::size_t>(2 * std::thread::hardware_concurrency(), 8, 64);
  n = std::bit_ceil(n);
  shard_mask_ = n - 1;
  const std::int64_t now_tick = clock_.Now().time_since_epoch().count() >> tick_shift_;
  for (std::size_t i = 0; i < n; ++i) {
    auto shard = std::make_unique<Shard>();
    shard->cursor = now_tick;
    shard->Grow();
    shards_.push_back(std::move(shard));
  }
  if (o.background_thread) thread_ = std::jthread([this](std::stop_token st) { Run(std::move(st)); });
}

TimerService::~TimerService() = default;  // thread_ is joined first (declared last)

TimerService::Shard& TimerService::ShardForThisThread() noexcept {
  thread_local const ThreadSlot slot;
  return *shards_[slot.index & shard_mask_];
}

TimerHandle TimerService::Schedule(TimePoint deadline, Callback callback, void* arg) noexcept {
  if (deadline == kInfiniteFuture) return TimerHandle();
  Shard& s = ShardForThisThread();
  s.Lock();
  Node* n = s.Allocate();
  n->deadline = deadline;
  n->callback = callback;
  n->arg = arg;
  n->state.store(timer_internal::kArmed, std::memory_order_relaxed);
  // A deadline already behind the cursor goes into the cursor's bucket, the
  // one the next Advance looks at first.
  const std::int64_t t = std::max(deadline.time_since_epoch().count() >> tick_shift_, s.cursor);
  InsertAfter(&s.buckets[static_cast<std::size_t>(t) & (kBuckets - 1)], n);
  ++s.armed;
  s.Unlock();
  // The shard lock orders this load after a parking thread's store of
  // parked_ (it stores, then locks every shard to look for armed timers).
  if (parked_.load(std::memory_order_relaxed)) Wake();
  return TimerHandle(n);
}

TimerHandle TimerService::Schedule(TimePoint deadline, std::stop_source& target) noexcept {
  return Schedule(
      deadline, [](void* p) noexcept { static_cast<std::stop_source*>(p)->request_stop(); }, &target);
}

bool TimerService::Cancel(TimerHandle& h) noexcept {
  Node* n = h.node_;
  if (n == nullptr) return true;
  h.node_ = nullptr;
  Shard& s = *n->shard;
  s.Lock();
  if (n->state.load(std::memory_order_relaxed) == timer_internal::kArmed) {
    Unlink(n);
    --s.armed;
    s.Release(n);
    s.Unlock();
    return true;
  }
  s.Unlock();
  // Fired or firing: wait until the callback has returned, then free.
  while (n->state.load(std::memory_order_acquire) != timer_internal::kFired) std::this_thread::yield();
  s.Lock();
  s.Release(n);
  s.Unlock();
  return false;
}

std::size_t TimerService::Advance(TimePoint now, bool* any_armed) {
  const std::int64_t to = now.time_since_epoch().count() >> tick_shift_;
  std::size_t fired = 0;
  bool any = false;
  for (auto& shard : shards_) {
    Shard& s = *shard;
    Node* batch = nullptr;
    s.Lock();
    if (to >= s.cursor) {
      const auto visits = static_cast<std::size_t>(std::min<std::int64_t>(to - s.cursor + 1, kBuckets));
      for (std::size_t i = 0; i < visits; ++i) {
        Link* head = &s.buckets[static_cast<std::size_t>(s.cursor + static_cast<std::int64_t>(i)) & (kBuckets - 1)];
        for (Link* l = head->next; l != head;) {
          auto* n = static_cast<Node*>(l);
          l = l->next;
          if (n->deadline > now) continue;
          Unlink(n);
          --s.armed;
          n->state.store(timer_internal::kFiring, std::memory_order_relaxed);
          n->chain = batch;
          batch = n;
        }
      }
      s.cursor = to;
    }
    any = any || s.armed > 0;
    s.Unlock();
    // Callbacks run outside the lock; Cancel waits for kFired.
    while (batch != nullptr) {
      Node* n = batch;
      batch = n->chain;  // read before kFired: Cancel may reuse the node at once
      n->callback(n->arg);
      n->state.store(timer_internal::kFired, std::memory_order_release);
      ++fired;
    }
  }
  if (any_armed != nullptr) *any_armed = any;
  return fired;
}

std::size_t TimerService::RunDue() { return Advance(clock_.Now(), nullptr); }

std::size_t TimerService::armed() const {
  std::size_t total = 0;
  for (const auto& shard : shards_) {
    shard->Lock();
    total += shard->armed;
    shard->Unlock();
  }
  return total;
}

void TimerService::Run(std::stop_token stop) {
  int idle = 0;
  while (!stop.stop_requested()) {
    const TimePoint now = clock_.Now();
    bool any = false;
    Advance(now, &any);
    if (any) {
      idle = 0;
    } else if (++idle >= idle_ticks_before_park_) {
      if (!ParkUntilScheduled(stop)) return;
      idle = 0;
      continue;
    }
    // Wake at the start of the next tick: timers are at most one tick late.
    const std::int64_t next = ((now.time_since_epoch().count() >> tick_shift_) + 1) << tick_shift_;
    clock_.SleepUntil(TimePoint(Duration(next)), stop);
  }
}

bool TimerService::ParkUntilScheduled(std::stop_token& stop) {
  parked_.store(true, std::memory_order_seq_cst);
  // A Schedule that locked its shard before us is seen here; one that locks
  // after us sees parked_ and wakes us.
  if (armed() > 0) {
    parked_.store(false, std::memory_order_relaxed);
    return true;
  }
  std::unique_lock lock(park_mu_);
  park_cv_.wait(lock, stop, [this] { return !parked_.load(std::memory_order_relaxed); });
  return !stop.stop_requested();
}

void TimerService::Wake() {
  {
    std::lock_guard lock(park_mu_);
    parked_.store(false, std::memory_order_relaxed);
  }
  park_cv_.notify_one();
}

}  // namespace stormguard
