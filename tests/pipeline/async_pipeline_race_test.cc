// The completion driver under contention: calls start on several threads,
// attempts report inline, from another thread, or from their stop callback,
// while a timer thread moves a manual clock and fires timeouts, backoff
// waits, bulkhead waits and hedge delays. Whatever the interleaving, every call answers
// exactly once and nothing stays held. Bounded: it stops after a fixed
// number of virtual milliseconds even if calls hang, and then fails.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "pipeline/pipeline_test_util.h"

namespace stormguard {
namespace {
using namespace std::chrono_literals;
using testkit::ManualEnv;
using testkit::Unwrap;

// Reports handed-over attempts from its own thread.
class Completer {
 public:
  Completer() : thread_([this] { Run(); }) {}
  ~Completer() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  void Hand(Completion<Status> done) {
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(done));
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (int n = 0;; ++n) {
      cv_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      Completion<Status> done = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      done(n % 2 == 0 ? Status::Ok() : Status::Unavailable("busy"));
      lock.lock();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Completion<Status>> queue_;
  bool closing_ = false;
  std::thread thread_;
};

// Waits for its stop, then reports CANCELLED from the stop callback.
struct UntilStopped {
  struct Report {
    UntilStopped* self;
    void operator()() const noexcept {
      if (self->done) std::exchange(self->done, std::nullopt).value()(Status::Cancelled("stopped"));
    }
  };
  std::optional<Completion<Status>> done;
  std::optional<std::stop_callback<Report>> on_stop;
};

TEST(AsyncPipelineRaceTest, EveryCallAnswersOnceWhateverTheInterleaving) {
  ManualEnv env;
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 4, .max_wait = 20ms})));
  RetryOptions retry{.max_attempts = 3, .backoff = {.base = 5ms, .jitter = Jitter::kNone}, .idempotent = true};
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddTimeout(100ms)
                             .AddRetry(retry)
                             .AddBulkhead(bulkhead)
                             .AddAttemptTimeout(20ms)
                             .Build());
  constexpr int kThreads = 4, kCallsPerThread = 250;
  std::atomic<int> answered{0}, twice{0};
  std::vector<std::unique_ptr<std::atomic<int>>> answers;
  for (int i = 0; i < kThreads * kCallsPerThread; ++i) answers.push_back(std::make_unique<std::atomic<int>>(0));
  std::vector<CallContext> contexts(kThreads * kCallsPerThread);
  std::vector<std::unique_ptr<std::atomic<int>>> tries;  // attempts started, per call
  for (int i = 0; i < kThreads * kCallsPerThread; ++i) tries.push_back(std::make_unique<std::atomic<int>>(0));
  std::vector<std::unique_ptr<UntilStopped>> hanging(kThreads * kCallsPerThread * 3);
  std::atomic<bool> starting{true};
  {
    Completer completer;
    std::vector<std::thread> starters;
    for (int t = 0; t < kThreads; ++t) {
      starters.emplace_back([&, t] {
        for (int i = 0; i < kCallsPerThread; ++i) {
          const int id = t * kCallsPerThread + i;
          p.ExecuteAsync(
              contexts[id],
              [&, id](CallContext& c, Completion<Status> done) {
                const int n = tries[id]->fetch_add(1);
                switch ((id + n) % 4) {
                  case 0: return done(Status::Ok());
                  case 1: return done(Status::Unavailable("down"));
                  case 2: return completer.Hand(std::move(done));
                  default: {
                    auto& h = hanging[id * 3 + n % 3];
                    h = std::make_unique<UntilStopped>();
                    h->done.emplace(std::move(done));
                    h->on_stop.emplace(c.stop, UntilStopped::Report{h.get()});
                  }
                }
              },
              [&, id](Status) {
                if (answers[id]->fetch_add(1) > 0) twice.fetch_add(1);
                answered.fetch_add(1);
              });
        }
      });
    }
    std::thread timer([&] {
      for (int ms = 0; ms < 100'000 && answered.load() < kThreads * kCallsPerThread; ++ms) {
        env.AdvanceAndFire(1ms);
        if (starting.load()) std::this_thread::yield();
      }
    });
    for (auto& s : starters) s.join();
    starting = false;
    timer.join();
  }
  for (auto& h : hanging) {
    if (h) h->on_stop.reset();
  }
  EXPECT_EQ(answered.load(), kThreads * kCallsPerThread);
  EXPECT_EQ(twice.load(), 0);
  EXPECT_EQ(bulkhead->stats().in_use, 0);
  EXPECT_EQ(bulkhead->stats().waiting, 0);
  EXPECT_EQ(env.timers->armed(), 0u);
}

// Hedged attempts of one call start on the starter's thread and on the
// timer thread, and report from three threads at once; losers are stopped
// while they start, report, or wait for their stop.
TEST(AsyncPipelineRaceTest, HedgedCallsAnswerOnceWhateverTheInterleaving) {
  ManualEnv env;
  auto workers = Unwrap(Executor::Create({.threads = 1, .timers = env.timers.get()}));
  auto bulkhead = std::shared_ptr<Bulkhead>(Unwrap(Bulkhead::Create({.max_concurrent = 8, .max_wait = 5ms})));
  RetryOptions retry{.max_attempts = 3, .backoff = {.base = 5ms, .jitter = Jitter::kNone}, .idempotent = true};
  PipelineRef p = Unwrap(PipelineBuilder(env.options())
                             .AddTimeout(100ms)
                             .AddRetry(retry)
                             .AddHedge({.delay = 2ms, .max_hedged_attempts = 2, .idempotent = true}, workers)
                             .AddBulkhead(bulkhead)
                             .AddAttemptTimeout(20ms)
                             .Build());
  constexpr int kThreads = 4, kCallsPerThread = 150, kCalls = kThreads * kCallsPerThread;
  constexpr int kMaxTries = 3 * 3;  // rounds x attempts per round
  std::atomic<int> answered{0}, twice{0};
  std::vector<std::unique_ptr<std::atomic<int>>> answers, tries;
  for (int i = 0; i < kCalls; ++i) {
    answers.push_back(std::make_unique<std::atomic<int>>(0));
    tries.push_back(std::make_unique<std::atomic<int>>(0));
  }
  std::vector<CallContext> contexts(kCalls);
  std::vector<std::unique_ptr<UntilStopped>> hanging(kCalls * kMaxTries);
  std::atomic<bool> starting{true};
  {
    Completer completer;
    std::vector<std::thread> starters;
    for (int t = 0; t < kThreads; ++t) {
      starters.emplace_back([&, t] {
        for (int i = 0; i < kCallsPerThread; ++i) {
          const int id = t * kCallsPerThread + i;
          p.ExecuteAsync(
              contexts[id],
              [&, id](CallContext& c, Completion<Status> done) {
                const int n = tries[id]->fetch_add(1);
                switch ((id + n) % 4) {
                  case 0: return done(Status::Ok());
                  case 1: return done(Status::Unavailable("down"));  // non-fatal: hedge at once
                  case 2: return completer.Hand(std::move(done));
                  default: {
                    auto& h = hanging[id * kMaxTries + n];
                    h = std::make_unique<UntilStopped>();
                    h->done.emplace(std::move(done));
                    h->on_stop.emplace(c.stop, UntilStopped::Report{h.get()});
                  }
                }
              },
              [&, id](Status) {
                if (answers[id]->fetch_add(1) > 0) twice.fetch_add(1);
                answered.fetch_add(1);
              });
        }
      });
    }
    std::thread timer([&] {
      for (int ms = 0; ms < 100'000 && answered.load() < kCalls; ++ms) {
        env.AdvanceAndFire(1ms);
        if (starting.load()) std::this_thread::yield();
      }
    });
    for (auto& s : starters) s.join();
    starting = false;
    timer.join();
  }  // the completer reports what it still holds: late losers
  for (auto& h : hanging) {
    if (h) h->on_stop.reset();
  }
  EXPECT_EQ(answered.load(), kCalls);
  EXPECT_EQ(twice.load(), 0);
  EXPECT_EQ(bulkhead->stats().in_use, 0);
  EXPECT_EQ(bulkhead->stats().waiting, 0);
  EXPECT_EQ(env.timers->armed(), 0u);
}

}  // namespace
}  // namespace stormguard
