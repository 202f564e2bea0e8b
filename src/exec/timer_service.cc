#include "stormguard/exec/timer_service.h"

#include <algorithm>
#include <condition_variable>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "stormguard/core/validation.h"

namespace stormguard {
namespace timer_internal {

// A slot's word: generation << 2 | phase. Every Schedule starts a new
// generation, so the timer thread's compare-and-swap from "armed" to
// "firing" fails if the slot was disarmed (and perhaps re-armed) after it
// looked at it, and a handle of an older generation knows its timer fired.
// The other fields are written only while the slot is free.
enum Phase : std::uint64_t { kFree = 0, kArmed = 1, kFiring = 2 };
constexpr std::uint64_t PhaseOf(std::uint64_t w) noexcept { return w & 3; }
constexpr std::uint64_t With(std::uint64_t w, Phase p) noexcept { return (w & ~std::uint64_t{3}) | p; }

struct Slot {
  std::atomic<std::uint64_t> word{0};
  std::atomic<std::int64_t> deadline{0};  // ns on the clock's axis
  std::atomic<TimerService::Callback> callback{nullptr};
  std::atomic<void*> arg{nullptr};
};

}  // namespace timer_internal

using timer_internal::Slot;

// One thread's slots. Only the owning thread arms slots (so finding a free
// one needs no atomic read-modify-write); anyone may disarm; the timer
// thread fires. When all slots are armed, the owner chains another block.
struct alignas(64) TimerService::Block {
  static constexpr int kSlots = 16;
  Slot slots[kSlots];
  std::atomic<Block*> next{nullptr};  // owned by this block
  std::atomic<bool> orphaned{false};  // its thread exited: a new thread may take it

  Block() = default;
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() { delete next.load(std::memory_order_relaxed); }

  static bool IsFree(const Slot& s) noexcept {
    return timer_internal::PhaseOf(s.word.load(std::memory_order_acquire)) == timer_internal::kFree;
  }
  Slot* FreeSlot() {
    for (Block* b = this;; b = b->next.load(std::memory_order_relaxed)) {
      for (Slot& s : b->slots) {
        if (IsFree(s)) return &s;
      }
      if (b->next.load(std::memory_order_relaxed) == nullptr) {
        b->next.store(new Block, std::memory_order_release);
      }
    }
  }
  bool AllFree() const noexcept {
    for (const Block* b = this; b != nullptr; b = b->next.load(std::memory_order_acquire)) {
      for (const Slot& s : b->slots) {
        if (!IsFree(s)) return false;
      }
    }
    return true;
  }
};

namespace {

// The blocks this thread uses, one per service; marked orphaned when the
// thread exits so a later thread reuses them instead of growing the list.
struct ThreadBlocks {
  struct Entry {
    std::uint64_t service = 0;
    std::shared_ptr<TimerService::Block> block;
  };
  Entry recent;  // the service used last (recent_block below mirrors it)
  std::vector<Entry> others;

  ~ThreadBlocks() {
    if (recent.block) recent.block->orphaned.store(true, std::memory_order_release);
    for (Entry& e : others) e.block->orphaned.store(true, std::memory_order_release);
  }
};

ThreadBlocks& ThisThreadsBlocks() noexcept {
  thread_local ThreadBlocks blocks;
  return blocks;
}

// ThreadBlocks::recent again, as plain words: a thread_local with a
// destructor is reached through an initialisation check on every use, this
// one directly, and every timer a call arms starts here.
struct RecentBlock {
  std::uint64_t service = 0;
  TimerService::Block* block = nullptr;
};
thread_local RecentBlock recent_block;

// Set on every service's background thread, for OnBackgroundThread.
thread_local bool on_background_thread = false;

std::atomic<std::uint64_t> next_service_id{1};

// Sleeping needs a store-load order between Schedule (store the slot, load
// sleeping_until_) and the thread going to sleep (store sleeping_until_, scan
// the slots). With Linux's membarrier the sleeping thread pays for it with
// one system call and Schedule needs only a compiler fence; elsewhere both
// use a full fence.
bool RegisterMembarrier() noexcept {
#if defined(__linux__) && defined(SYS_membarrier)
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

// Whether a thread asleep until `sleeping_ns` must wake for a timer due at
// `deadline_ns`: only when it would otherwise fire more than a tick late.
bool WakesFor(std::int64_t deadline_ns, std::int64_t sleeping_ns, std::int64_t tick_ns) noexcept {
  // sleeping_ns > deadline_ns, so the difference fits in 64 unsigned bits.
  return sleeping_ns > deadline_ns &&
         static_cast<std::uint64_t>(sleeping_ns) - static_cast<std::uint64_t>(deadline_ns) >
             static_cast<std::uint64_t>(tick_ns);
}

std::int64_t Ns(TimePoint t) noexcept { return t.time_since_epoch().count(); }

void HeavyBarrier(bool membarrier) noexcept {
#if defined(__linux__) && defined(SYS_membarrier)
  if (membarrier && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

}  // namespace

std::vector<std::string> TimerServiceOptions::Validate() const {
  Validator v;
  v.Check(tick > Duration::zero(), "tick", "must be positive");
  v.Check(tick <= std::chrono::seconds(1), "tick", "must be at most 1s");
  v.Check(slow_callback > Duration::zero(), "slow_callback", "must be positive");
  return std::move(v).errors();
}

Result<std::shared_ptr<TimerService>> TimerService::Create(Clock& clock, TimerServiceOptions options) {
  Status s = ValidationStatus("timer service options", options.Validate());
  if (!s.ok()) return s;
  return std::shared_ptr<TimerService>(new TimerService(clock, options));
}

TimerService& TimerService::Default() {
  // Leaked on purpose: calls may still arm timers while statics are destroyed.
  static TimerService* const service = new TimerService(Clock::Real(), TimerServiceOptions{});
  return *service;
}

TimerService::TimerService(Clock& clock, const TimerServiceOptions& o)
    : clock_(clock),
      tick_(o.tick),
      id_(next_service_id.fetch_add(1, std::memory_order_relaxed)),
      membarrier_(RegisterMembarrier()),
      slow_callback_(o.slow_callback) {
  if (o.background_thread) thread_ = std::jthread([this](std::stop_token st) { Run(std::move(st)); });
}

TimerService::~TimerService() = default;  // thread_ is joined first (declared last)

// Inline into Arm: the fast path is a compare and a load, less than a call.
[[gnu::always_inline]] inline TimerService::Block& TimerService::BlockForThisThread() {
  if (recent_block.service == id_) [[likely]]
    return *recent_block.block;
  // Out of line, so the fast path above saves no registers for it.
  return [this]() __attribute__((noinline))->Block& {
    ThreadBlocks& t = ThisThreadsBlocks();
    // Blocks no service holds any more belong to destroyed services.
    std::erase_if(t.others, [](const ThreadBlocks::Entry& e) { return e.block.use_count() == 1; });
    auto it = std::find_if(t.others.begin(), t.others.end(),
                           [this](const ThreadBlocks::Entry& e) { return e.service == id_; });
    ThreadBlocks::Entry mine = it != t.others.end() ? std::move(*it) : ThreadBlocks::Entry{id_, Register()};
    if (it != t.others.end()) t.others.erase(it);
    if (t.recent.block) t.others.push_back(std::move(t.recent));
    t.recent = std::move(mine);
    recent_block = {id_, t.recent.block.get()};
    return *t.recent.block;
  }
  ();
}

std::shared_ptr<TimerService::Block> TimerService::Register() {
  std::lock_guard lock(blocks_mu_);
  for (const auto& b : blocks_) {
    if (b->orphaned.load(std::memory_order_acquire) && b->AllFree()) {
      b->orphaned.store(false, std::memory_order_relaxed);
      return b;
    }
  }
  blocks_.push_back(std::make_shared<Block>());
  return blocks_.back();
}

// Both Schedule overloads inline it: every call through a timeout arms a
// timer, and a frame apiece costs about as much as the arming itself.
[[gnu::always_inline]] inline TimerHandle TimerService::Arm(TimePoint deadline, Callback callback, void* arg) noexcept {
  if (deadline == kInfiniteFuture) return TimerHandle();
  Slot* s = BlockForThisThread().FreeSlot();
  const std::uint64_t w = s->word.load(std::memory_order_relaxed);
  s->deadline.store(deadline.time_since_epoch().count(), std::memory_order_relaxed);
  s->callback.store(callback, std::memory_order_relaxed);
  s->arg.store(arg, std::memory_order_relaxed);
  const std::uint64_t armed = timer_internal::With(w + 4, timer_internal::kArmed);
  s->word.store(armed, std::memory_order_release);
  if (membarrier_) {
    std::atomic_signal_fence(std::memory_order_seq_cst);
  } else {
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  if (WakesFor(Ns(deadline), sleeping_until_.load(std::memory_order_relaxed), tick_.count())) [[unlikely]] {
    Wake();
  }
  return TimerHandle(s, armed);
}

TimerHandle TimerService::Schedule(TimePoint deadline, Callback callback, void* arg) noexcept {
  return Arm(deadline, callback, arg);
}

TimerHandle TimerService::Schedule(TimePoint deadline, std::stop_source& target) noexcept {
  return Arm(
      deadline, [](void* p) noexcept { static_cast<std::stop_source*>(p)->request_stop(); }, &target);
}

// Inline into Cancel and TryCancel: every timeout that did not fire passes here.
[[gnu::always_inline]] inline bool TimerService::Disarm(TimerHandle& h, bool wait_for_callback) noexcept {
  Slot* s = h.slot_;
  if (s == nullptr) return true;
  std::uint64_t w = h.word_;
  // Acquire, also when the CAS fails: a timer that fired must make its
  // callback's effects visible before the caller frees what it touched
  // (the stop_source); TSan found the relaxed version.
  if (s->word.compare_exchange_strong(w, timer_internal::With(w, timer_internal::kFree), std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
    h = TimerHandle();
    return true;
  }
  // Fired (the slot is free, perhaps armed again by its thread) or firing.
  if (!wait_for_callback) return false;
  const std::uint64_t firing = timer_internal::With(h.word_, timer_internal::kFiring);
  h = TimerHandle();
  while (w == firing) {  // until the callback returned and the timer thread let go
    std::this_thread::yield();
    w = s->word.load(std::memory_order_acquire);
  }
  return false;
}

bool TimerService::Cancel(TimerHandle& h) noexcept { return Disarm(h, /*wait_for_callback=*/true); }

bool TimerService::TryCancel(TimerHandle& h) noexcept { return Disarm(h, /*wait_for_callback=*/false); }

std::size_t TimerService::Advance(TimePoint now, TimePoint* earliest) {
  std::lock_guard advancing(advance_mu_);
  {
    // Blocks live as long as the service: scan them without the lock, so a
    // callback may arm a timer (and register its thread) meanwhile.
    std::lock_guard lock(blocks_mu_);
    scan_.clear();
    for (const auto& b : blocks_) scan_.push_back(b.get());
  }
  const std::int64_t now_ns = Ns(now);
  std::size_t fired = 0;
  std::int64_t next_ns = Ns(kInfiniteFuture);
  TimePoint started = now;  // of the next callback: one clock read per firing
  for (Block* head : scan_) {
    for (Block* b = head; b != nullptr; b = b->next.load(std::memory_order_acquire)) {
      for (Slot& s : b->slots) {
        std::uint64_t w = s.word.load(std::memory_order_acquire);
        if (timer_internal::PhaseOf(w) != timer_internal::kArmed) continue;
        const Callback callback = s.callback.load(std::memory_order_relaxed);
        void* const arg = s.arg.load(std::memory_order_relaxed);
        // Read before the CAS: if the slot was disarmed meanwhile, the CAS fails.
        const std::int64_t deadline_ns = s.deadline.load(std::memory_order_relaxed);
        if (deadline_ns > now_ns) {
          next_ns = std::min(next_ns, deadline_ns);
          continue;
        }
        if (!s.word.compare_exchange_strong(w, timer_internal::With(w, timer_internal::kFiring),
                                            std::memory_order_acq_rel, std::memory_order_acquire)) {
          continue;  // disarmed meanwhile (and perhaps armed again: the rescan before sleeping sees it)
        }
        callback(arg);
        const TimePoint done = clock_.Now();
        NoteCallbackTime(callback, done - started);
        started = done;
        // Free again: a fired timer needs no Cancel, and its thread may re-arm the slot.
        s.word.store(timer_internal::With(w, timer_internal::kFree), std::memory_order_release);
        ++fired;
      }
    }
  }
  if (earliest != nullptr) *earliest = TimePoint(Duration(next_ns));
  return fired;
}

// Under advance_mu_: the only writer.
void TimerService::NoteCallbackTime(Callback callback, Duration took) noexcept {
  if (took <= slow_callback_) return;
  slow_count_.fetch_add(1, std::memory_order_relaxed);
  if (took.count() <= slow_longest_ns_.load(std::memory_order_relaxed)) return;
  slow_longest_ns_.store(took.count(), std::memory_order_relaxed);
  slow_longest_callback_.store(callback, std::memory_order_relaxed);
}

TimerService::SlowCallbacks TimerService::slow_callbacks() const noexcept {
  return {.count = slow_count_.load(std::memory_order_relaxed),
          .longest = Duration(slow_longest_ns_.load(std::memory_order_relaxed)),
          .longest_callback = slow_longest_callback_.load(std::memory_order_relaxed)};
}

std::size_t TimerService::RunDue() { return Advance(clock_.Now(), nullptr); }

std::size_t TimerService::armed() const {
  std::lock_guard lock(blocks_mu_);
  std::size_t n = 0;
  for (const auto& head : blocks_) {
    for (const Block* b = head.get(); b != nullptr; b = b->next.load(std::memory_order_acquire)) {
      for (const Slot& s : b->slots) {
        n += timer_internal::PhaseOf(s.word.load(std::memory_order_acquire)) == timer_internal::kArmed;
      }
    }
  }
  return n;
}

TimePoint TimerService::EarliestArmed() const {
  std::lock_guard lock(blocks_mu_);
  std::int64_t next_ns = Ns(kInfiniteFuture);
  for (const auto& head : blocks_) {
    for (const Block* b = head.get(); b != nullptr; b = b->next.load(std::memory_order_acquire)) {
      for (const Slot& s : b->slots) {
        if (timer_internal::PhaseOf(s.word.load(std::memory_order_acquire)) != timer_internal::kArmed) continue;
        next_ns = std::min(next_ns, s.deadline.load(std::memory_order_relaxed));
      }
    }
  }
  return TimePoint(Duration(next_ns));
}

bool TimerService::OnBackgroundThread() noexcept { return on_background_thread; }

void TimerService::Run(std::stop_token stop) {
  on_background_thread = true;
  while (!stop.stop_requested()) {
    const TimePoint now = clock_.Now();
    TimePoint earliest = kInfiniteFuture;
    Advance(now, &earliest);
    // At most one wake-up a tick, however many timers fall due.
    if (!SleepUntilDue(std::max(earliest, SaturatingAdd(now, tick_)), stop)) return;
  }
}

// Sleeps until `target` (without end when it is infinite), or until Wake or
// the service's stop ends the sleep; false when the service stops.
bool TimerService::SleepUntilDue(TimePoint target, std::stop_token& stop) {
  std::stop_source wake;
  std::stop_callback forward(stop, [&wake]() noexcept { wake.request_stop(); });
  {
    std::lock_guard lock(wake_mu_);
    wake_ = wake;
  }
  sleeping_until_.store(Ns(target), std::memory_order_relaxed);
  // A Schedule that armed before this barrier is seen by the scan below; one
  // that armed after it sees sleeping_until_ and wakes this thread.
  HeavyBarrier(membarrier_);
  if (!WakesFor(Ns(EarliestArmed()), Ns(target), tick_.count())) {
    if (target != kInfiniteFuture) {
      clock_.SleepUntil(target, wake.get_token());
    } else {
      std::mutex mu;
      std::condition_variable_any cv;
      std::unique_lock lock(mu);
      cv.wait(lock, wake.get_token(), [] { return false; });
    }
  }
  sleeping_until_.store(kAwake, std::memory_order_relaxed);
  return !stop.stop_requested();
}

void TimerService::Wake() noexcept {
  std::stop_source wake(std::nostopstate);
  {
    std::lock_guard lock(wake_mu_);
    // Later arms need not wake it again: it scans everything once awake.
    sleeping_until_.store(kAwake, std::memory_order_relaxed);
    wake = wake_;
  }
  wake.request_stop();
}

}  // namespace stormguard
