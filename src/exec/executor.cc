#include "stormguard/exec/executor.h"

#include <utility>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> ExecutorOptions::Validate() const {
  Validator v;
  v.Check(threads >= 1 && threads <= 64, "threads", "must be between 1 and 64");
  v.Check(queue_capacity >= 1, "queue_capacity", "must be at least 1");
  return std::move(v).errors();
}

Result<std::shared_ptr<Executor>> Executor::Create(ExecutorOptions options) {
  Status s = ValidationStatus("executor options", options.Validate());
  if (!s.ok()) return s;
  TimerService& timers = options.timers != nullptr ? *options.timers : TimerService::Default();
  std::shared_ptr<Executor> ex(new Executor(options, timers));
  ex->Start();
  return ex;
}

Executor::Executor(const ExecutorOptions& o, TimerService& timers)
    : o_(o), timers_(timers), ring_(static_cast<std::size_t>(o_.queue_capacity)) {}

void Executor::Start() {
  workers_.reserve(static_cast<std::size_t>(o_.threads));
  for (int i = 0; i < o_.threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

Executor::~Executor() { Shutdown(); }

void Executor::Shutdown() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
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

}  // namespace stormguard
