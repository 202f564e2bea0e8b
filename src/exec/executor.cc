#include "stormguard/exec/executor.h"

#include <thread>
#include <utility>

#include "stormguard/core/validation.h"

namespace stormguard {
namespace {

// The executor Create makes: a fixed pool of workers fed by a bounded ring.
class WorkerPool final : public Executor {
 public:
  WorkerPool(const ExecutorOptions& o, TimerService& timers)
      : Executor(timers), threads_(o.threads), ring_(static_cast<std::size_t>(o.queue_capacity)) {}
  ~WorkerPool() override { Shutdown(); }

  // Once constructed: the destructor joins whatever started.
  void Start() {
    workers_.reserve(static_cast<std::size_t>(threads_));
    for (int i = 0; i < threads_; ++i) workers_.emplace_back([this] { WorkerLoop(); });
  }

  bool TrySubmit(SmallTask task) noexcept override;
  void Shutdown() override;

 private:
  void WorkerLoop();

  const int threads_;
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::vector<SmallTask> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

void WorkerPool::Shutdown() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  for (auto& w : workers_) {
    if (w.joinable()) w.join();
  }
}

// Counts and signals under the lock: once it is released the task may run,
// finish a call, and let the call's owner destroy this pool, so the
// submitter (a timer's hand-off, say) must not touch the pool after it.
bool WorkerPool::TrySubmit(SmallTask task) noexcept {
  std::lock_guard lock(queue_mu_);
  if (stopping_ || size_ == ring_.size()) return false;
  ring_[(head_ + size_) % ring_.size()] = task;
  ++size_;
  CountSubmitted();
  queue_cv_.notify_one();
  return true;
}

void WorkerPool::WorkerLoop() {
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

}  // namespace

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
  auto pool = std::make_shared<WorkerPool>(options, timers);
  pool->Start();
  return std::shared_ptr<Executor>(std::move(pool));
}

Executor& Executor::ForTimerCallbacks() {
  // Leaked on purpose, as TimerService::Default(): breakers may arm timers
  // while statics are destroyed. Held by a static, so leak checkers see it.
  static const std::shared_ptr<Executor>* const pool = new std::shared_ptr<Executor>(Create({.threads = 2}).value());
  return **pool;
}

void Executor::Wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, FunctionRef<bool()> done) {
  cv.wait(lock, [&] { return done(); });
}

}  // namespace stormguard
