#include "demo/load_generator.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "stormguard/core/clock.h"
#include "stormguard/core/random.h"

namespace stormguard::demo {
namespace {

// Due operations waiting for a worker; closed once the schedule has ended.
class WorkQueue {
 public:
  void Push(Operation op) {
    {
      std::lock_guard lock(mu_);
      ops_.push_back(op);
    }
    cv_.notify_one();
  }
  void Close() {
    {
      std::lock_guard lock(mu_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  // False once closed and drained.
  bool Pop(Operation& op) {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return closed_ || !ops_.empty(); });
    if (ops_.empty()) return false;
    op = ops_.front();
    ops_.pop_front();
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Operation> ops_;
  bool closed_ = false;
};

// Runs the schedule: every operation of every phase, each pushed when due.
void Schedule(const LoadPlan& plan, const PhaseFn& on_phase, WorkQueue& queue) {
  Random rng(plan.seed);
  const Duration gap = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / plan.rate));
  const std::vector<PhaseSpan> spans = PhaseSpans(plan.phases);
  std::uint64_t id = 0;
  for (std::size_t p = 0; p < plan.phases.size(); ++p) {
    const TimePoint phase_start = plan.start + spans[p].start, phase_end = plan.start + spans[p].end;
    Clock::Real().SleepUntil(phase_start, {});
    on_phase(p);
    for (std::uint64_t i = 0;; ++i) {
      const TimePoint due = phase_start + gap * static_cast<std::int64_t>(i);
      if (due >= phase_end) break;
      Clock::Real().SleepUntil(due, {});
      queue.Push({.id = ++id, .phase = p, .charge = rng.Below(2) == 1 && plan.charges, .due = due});
    }
  }
}

}  // namespace

std::vector<OperationResult> RunOpenLoop(const LoadPlan& plan, const SendFn& send, const PhaseFn& on_phase) {
  WorkQueue queue;
  std::mutex mu;
  std::vector<OperationResult> results;
  std::vector<std::jthread> workers;
  for (int w = 0; w < plan.workers; ++w) {
    workers.emplace_back([&] {
      Operation op;
      while (queue.Pop(op)) {
        const bool ok = send(op);
        const TimePoint end = Clock::Real().Now();
        std::lock_guard lock(mu);
        results.push_back({op.phase, op.due - plan.start, end - op.due, ok});
      }
    });
  }
  Schedule(plan, on_phase, queue);
  queue.Close();
  workers.clear();  // joins: every operation has finished
  return results;
}

}  // namespace stormguard::demo
