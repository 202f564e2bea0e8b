#include "stormguard/exec/executor.h"

#include <utility>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> ExecutorOptions::Validate() const {
  Validator v;
  v.Check(threads >= 1 && threads <= 64, "threads", "must be between 1 and 64");
  v.Check(queue_capacity >= 1, "queue_capacity", "must be at least 1");
  v.Check(timer_capacity >= 1, "timer_capacity", "must be at least 1");
  return std::move(v).errors();
}

Result<std::unique_ptr<Executor>> Executor::Create(ExecutorOptions options, Clock& clock) {
  Status s = ValidationStatus("executor options", options.Validate());
  if (!s.ok()) return s;
  std::unique_ptr<Executor> ex(new Executor(std::move(options), clock));
  ex->Start();
  return ex;
}

Executor::Executor(ExecutorOptions o, Clock& clock)
    : o_(std::move(o)),
      clock_(clock),
      ring_(static_cast<std::size_t>(o_.queue_capacity)),
      slots_(static_cast<std::size_t>(o_.timer_capacity)) {
  heap_.reserve(slots_.size());
  free_.reserve(slots_.size());
  for (int i = o_.timer_capacity - 1; i >= 0; --i) free_.push_back(i);
}

void Executor::Start() {
  workers_.reserve(static_cast<std::size_t>(o_.threads));
  for (int i = 0; i < o_.threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  timer_thread_ = std::thread([this] { TimerLoop(); });
}

Executor::~Executor() { Shutdown(); }

void Executor::Shutdown() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  {
    std::lock_guard lock(timer_mu_);
    timer_stopping_ = true;
    if (wake_ != nullptr) wake_->request_stop();
  }
  timer_cv_.notify_all();
  // Timers first: their tasks may still submit (and be refused) while the
  // workers drain what was accepted before.
  if (timer_thread_.joinable()) timer_thread_.join();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
}

bool Executor::TrySubmit(SmallTask task) noexcept {
  {
    std::lock_guard lock(queue_mu_);
    if (stopping_ || size_ == ring_.size()) return false;
    ring_[(head_ + size_) % ring_.size()] = task;
    ++size_;
  }
  submitted_.fetch_add(1, std::memory_order_relaxed);
  queue_cv_.notify_one();
  return true;
}

void Executor::WorkerLoop() {
  std::unique_lock lock(queue_mu_);
  for (;;) {
    queue_cv_.wait(lock, [this] { return stopping_ || size_ > 0; });
    if (size_ == 0) return;  // stopping and drained
    const SmallTask task = ring_[head_];
    head_ = (head_ + 1) % ring_.size();
    --size_;
    lock.unlock();
    task();
    lock.lock();
  }
}

TimerId Executor::ScheduleAt(TimePoint at, SmallTask task) noexcept {
  std::lock_guard lock(timer_mu_);
  if (timer_stopping_ || free_.empty()) return kNoTimer;
  const int slot = free_.back();
  free_.pop_back();
  TimerSlot& s = slots_[static_cast<std::size_t>(slot)];
  s.at = at;
  s.task = task;
  heap_.push_back(slot);  // capacity reserved: no allocation
  const int pos = static_cast<int>(heap_.size()) - 1;
  HeapPlace(pos, slot);
  HeapUp(pos);
  // Wake the timer thread only when it must re-plan: it waits for an empty
  // heap, or sleeps past this timer. A cancelled timer leaves it sleeping
  // until that timer's time, so calls with equal delays wake it about once
  // per delay, not once per call.
  if (wake_ == nullptr) {
    timer_cv_.notify_one();
  } else if (at < sleep_until_) {
    wake_->request_stop();
  }
  timers_scheduled_.fetch_add(1, std::memory_order_relaxed);
  return (TimerId{s.generation} << 32) | static_cast<std::uint32_t>(slot);
}

bool Executor::Cancel(TimerId id) noexcept {
  const auto slot = static_cast<std::size_t>(id & 0xffffffffu);
  const auto generation = static_cast<std::uint32_t>(id >> 32);
  std::lock_guard lock(timer_mu_);
  if (id == kNoTimer || slot >= slots_.size()) return false;
  const TimerSlot& s = slots_[slot];
  if (s.generation != generation || s.heap_pos < 0) return false;
  TakeTimer(static_cast<int>(slot));
  return true;
}

void Executor::TimerLoop() {
  std::unique_lock lock(timer_mu_);
  for (;;) {
    if (heap_.empty()) {
      if (timer_stopping_) return;
      timer_cv_.wait(lock);
      continue;
    }
    const int top = heap_[0];
    const TimePoint due = slots_[static_cast<std::size_t>(top)].at;
    if (timer_stopping_ || clock_.Now() >= due) {
      const SmallTask task = TakeTimer(top);  // freed first: Cancel now answers false
      lock.unlock();
      task();
      lock.lock();
      continue;
    }
    // Wait on the injected clock; ScheduleAt of an earlier timer or
    // Shutdown interrupts through `wake`.
    std::stop_source wake;
    wake_ = &wake;
    sleep_until_ = due;
    lock.unlock();
    clock_.SleepUntil(due, wake.get_token());
    lock.lock();
    wake_ = nullptr;
  }
}

void Executor::HeapPlace(int pos, int slot) noexcept {
  heap_[static_cast<std::size_t>(pos)] = slot;
  slots_[static_cast<std::size_t>(slot)].heap_pos = pos;
}

void Executor::HeapUp(int pos) noexcept {
  const int slot = heap_[static_cast<std::size_t>(pos)];
  const TimePoint at = slots_[static_cast<std::size_t>(slot)].at;
  while (pos > 0) {
    const int parent = (pos - 1) / 2;
    const int p = heap_[static_cast<std::size_t>(parent)];
    if (!(at < slots_[static_cast<std::size_t>(p)].at)) break;
    HeapPlace(pos, p);
    pos = parent;
  }
  HeapPlace(pos, slot);
}

void Executor::HeapDown(int pos) noexcept {
  const int n = static_cast<int>(heap_.size());
  const int slot = heap_[static_cast<std::size_t>(pos)];
  const TimePoint at = slots_[static_cast<std::size_t>(slot)].at;
  for (;;) {
    int child = 2 * pos + 1;
    if (child >= n) break;
    auto at_of = [this](int i) { return slots_[static_cast<std::size_t>(heap_[static_cast<std::size_t>(i)])].at; };
    if (child + 1 < n && at_of(child + 1) < at_of(child)) ++child;
    if (!(at_of(child) < at)) break;
    HeapPlace(pos, heap_[static_cast<std::size_t>(child)]);
    pos = child;
  }
  HeapPlace(pos, slot);
}

SmallTask Executor::TakeTimer(int slot) noexcept {
  TimerSlot& s = slots_[static_cast<std::size_t>(slot)];
  const int pos = s.heap_pos;
  const int last = heap_.back();
  heap_.pop_back();
  if (last != slot) {
    HeapPlace(pos, last);
    HeapUp(pos);
    HeapDown(slots_[static_cast<std::size_t>(last)].heap_pos);
  }
  const SmallTask task = s.task;
  s.heap_pos = -1;
  s.task = SmallTask();
  if (++s.generation == 0) s.generation = 1;  // an old id never matches again
  free_.push_back(slot);
  return task;
}

}  // namespace stormguard
