// The one scenario suite's view of a driver: scripted calls on virtual time.
//
// A scenario builds a pipeline with driver.options(), then runs calls whose
// attempts follow a script (each attempt takes some virtual time and then
// answers, or stops early when its ctx.stop fires), and checks what came
// back and when each attempt started. Time moves in 1 ms ticks: each tick
// fires due timers, then runs the scenario's hooks (release a slot, cancel
// a call), then ends attempts that are due. Nothing sleeps.
//
// A driver is one fixture class with:
//   ScenarioClock& clock();
//   PipelineOptions options(Listener* listener = nullptr);
//   CallRecord Run(const PipelineRef&, CallContext&, const Script&, bool with_fallback);
// BlockingDriver (with TurnExecutor for its hedges) and CompletionDriver
// are here. Another driver (an event
// loop's, in its own test binary) writes its class, includes the suites'
// headers (pipeline_scenarios.h and the topics beside it) and instantiates
// each for it:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Asio, PipelineScenarios, AsioDriver);
// Its waits may use ScenarioClock::timers() through an AsyncTimers of its
// own (Pipeline::ExecuteAsync(timers, ...)).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <thread>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::testkit {

// One attempt: it runs for `takes` (ending early, CANCELLED, when ctx.stop
// fires and it honours stops), then answers `answer`; an OK answer's value
// is the attempt number.
struct ScriptedAttempt {
  Duration takes = Duration::zero();
  Status answer = Status::Ok();
  bool honours_stop = true;
};
using Script = std::vector<ScriptedAttempt>;

// Per attempt, in the order attempts started (several may run at once
// under a hedge).
struct CallRecord {
  Result<int> result = Status::Internal("the call did not end");
  std::vector<Duration> attempt_starts;  // since the call started
  std::vector<bool> saw_stop;            // ctx.stop had fired when it ended (false while it runs)
  Duration took = Duration::zero();
};

// The fallback every scenario uses: -1 for any failure.
inline Result<int> FallbackValue(const Status&) { return -1; }

// Virtual time in ticks, shared by every driver. Only the blocking driver
// sleeps on it: SleepUntil waits for the time or the stop, and with a
// single thread it simply ticks the clock until then.
//
// Threads take turns on it (the blocking hedge's attempts run on threads of
// their own), so the order of everything is fixed by virtual time alone:
// one thread runs while the others wait in Await for their condition. A
// thread about to wait hands the turn to the first waiting thread, in the
// order they began to wait, whose condition holds, ticking the clock until
// one does. Running out of virtual time with other threads waiting ends
// the process with a message (a test cannot fail cleanly while threads
// wait for their turn).
class ScenarioClock final : public Clock {
 public:
  static constexpr Duration kTick = std::chrono::milliseconds(1);
  static constexpr int kMaxTicks = 600'000;  // ten virtual minutes: a hung scenario fails

  ScenarioClock() : timers_(TimerService::Create(*this, {.background_thread = false}).value()) {}

  TimePoint Now() const noexcept override { return TimePoint(Duration(now_.load())); }
  // Without a coarse tick (the default), the precise reading; with one, the
  // reading lags to the last multiple of it, as CLOCK_MONOTONIC_COARSE does.
  TimePoint CoarseNow() const noexcept override {
    const Duration::rep tick = coarse_tick_.load(), now = now_.load();
    return TimePoint(Duration(tick > 0 ? now - now % tick : now));
  }
  void set_coarse_tick(Duration tick) noexcept { coarse_tick_.store(tick.count()); }
  bool SleepUntil(TimePoint t, std::stop_token stop) override;

  TimerService& timers() noexcept { return *timers_; }
  // Runs `hook` once, in the tick that reaches `at`.
  void At(TimePoint at, std::function<void()> hook) { hooks_.push_back({at, std::move(hook)}); }
  // One tick: move 1 ms, fire due timers, run due hooks.
  void Tick();
  void Idle(Duration d) {
    for (Duration done{}; done < d; done += kTick) Tick();
  }

  // Called by the running thread: returns once ready() holds, having let
  // the other threads and the clock move meanwhile.
  void Await(std::function<bool()> ready);
  // Starts `body` on a thread of its own that waits for its turn first;
  // the running thread calls it, so the new thread's place in line is fixed.
  // When `body` returns, the thread passes the turn on and ends.
  std::thread Spawn(std::function<void()> body);

 private:
  struct Hook {
    TimePoint at;
    std::function<void()> run;
  };
  struct Turn {
    std::function<bool()> ready;
    bool go = false;  // under turn_mu_
  };
  void PassTurn();
  void WaitForTurn(Turn& t);
  std::atomic<Duration::rep> now_{std::chrono::hours(1).count() * 1'000'000'000LL};
  std::atomic<Duration::rep> coarse_tick_{0};
  std::shared_ptr<TimerService> timers_;
  std::vector<Hook> hooks_;
  int ticks_ = 0;
  // Touched only by the thread whose turn it is; the hand-over under
  // turn_mu_ orders one turn's writes before the next turn's reads.
  std::vector<Turn*> waiting_;
  std::mutex turn_mu_;
  std::condition_variable turn_cv_;
};

// The blocking hedge's executor under BlockingDriver: each task runs on a
// thread of its own that takes turns on the clock, and the hedge's wait for
// its attempts is a turn too, so hedged attempts start, end and see their
// stops at exact virtual times.
class TurnExecutor final : public Executor {
 public:
  explicit TurnExecutor(ScenarioClock& clock) : Executor(clock.timers()), clock_(clock) {}
  ~TurnExecutor() override { Shutdown(); }

  bool TrySubmit(SmallTask task) noexcept override;
  void Wait(std::unique_lock<std::mutex>& lock, std::condition_variable& cv, FunctionRef<bool()> done) override;
  // Runs every accepted task in its turns, then joins the threads.
  void Shutdown() override;

 private:
  ScenarioClock& clock_;
  // Touched in turns only, like the clock's line.
  std::vector<std::thread> threads_;
  int running_ = 0;
  bool stopped_ = false;
};

// Execute() on the calling thread; an attempt sleeps on the clock, which
// ticks while it waits. A hedge's attempts take turns with it (TurnExecutor).
class BlockingDriver {
 public:
  ScenarioClock& clock() { return clock_; }
  PipelineOptions options(Listener* listener = nullptr) {
    return {.clock = &clock_, .timers = &clock_.timers(), .listener = listener};
  }
  CallRecord Run(const PipelineRef& p, CallContext& ctx, const Script& script, bool with_fallback);
  // Where a blocking hedge runs its attempts.
  std::shared_ptr<Executor> hedge_executor() { return executor_; }

 private:
  ScenarioClock clock_;
  std::shared_ptr<Executor> executor_ = std::make_shared<TurnExecutor>(clock_);
};

// ExecuteAsync(): attempts are pending records ended by the tick loop (or
// at once, from their stop callback, when ctx.stop fires). Several may be
// pending at once (hedged attempts); after the call answers, the loop ticks
// on until the last of them has reported, so late losers report too.
class CompletionDriver {
 public:
  ScenarioClock& clock() { return clock_; }
  PipelineOptions options(Listener* listener = nullptr) {
    return {.clock = &clock_, .timers = &clock_.timers(), .listener = listener};
  }
  CallRecord Run(const PipelineRef& p, CallContext& ctx, const Script& script, bool with_fallback);

 private:
  struct Pending;
  ScenarioClock clock_;
};

inline bool ScenarioClock::SleepUntil(TimePoint t, std::stop_token stop) {
  Await([&] { return stop.stop_requested() || Now() >= t; });
  return !stop.stop_requested();
}

inline void ScenarioClock::Await(std::function<bool()> ready) {
  if (ready()) return;
  Turn me{std::move(ready)};
  waiting_.push_back(&me);
  try {
    PassTurn();
  } catch (const std::exception& e) {  // virtual time ran out
    std::erase(waiting_, &me);
    if (!waiting_.empty()) {
      std::fprintf(stderr, "%s, with threads waiting for their turn\n", e.what());
      std::abort();
    }
    throw;
  }
  WaitForTurn(me);
}

inline std::thread ScenarioClock::Spawn(std::function<void()> body) {
  auto turn = std::make_unique<Turn>(Turn{.ready = [] { return true; }});
  Turn* place = turn.get();
  std::thread thread([this, turn = std::move(turn), body = std::move(body)] {
    WaitForTurn(*turn);
    body();
    PassTurn();
  });
  waiting_.push_back(place);
  return thread;
}

inline void ScenarioClock::PassTurn() {
  for (;;) {
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
      Turn* next = *it;
      if (!next->ready()) continue;
      waiting_.erase(it);
      {
        std::lock_guard lock(turn_mu_);
        next->go = true;
      }
      turn_cv_.notify_all();
      return;
    }
    Tick();
  }
}

// A turn comes within microseconds of real time; one that never comes means
// a thread blocked outside the turns (a wait that is not Await: a driver not
// waiting through Executor::Wait), so the process ends rather than hangs.
inline void ScenarioClock::WaitForTurn(Turn& t) {
  std::unique_lock lock(turn_mu_);
  if (!turn_cv_.wait_for(lock, std::chrono::seconds(30), [&] { return t.go; })) {
    std::fprintf(stderr, "scenario: a thread waited 30 s of real time for its turn\n");
    std::abort();
  }
}

inline void ScenarioClock::Tick() {
  if (++ticks_ > kMaxTicks) throw std::runtime_error("scenario: virtual time ran out");
  now_.fetch_add(kTick.count());
  timers_->RunDue();
  for (std::size_t i = 0; i < hooks_.size(); ++i) {
    if (hooks_[i].at > Now() || !hooks_[i].run) continue;
    std::function<void()> run = std::move(hooks_[i].run);
    hooks_[i].run = nullptr;
    run();
  }
}

namespace scenario_internal {

inline const ScriptedAttempt& AttemptOf(const Script& script, std::size_t n) {
  static const ScriptedAttempt kPastTheScript{.answer = Status::Internal("scenario: more attempts than scripted")};
  return n < script.size() ? script[n] : kPastTheScript;
}

inline Result<int> Answer(const ScriptedAttempt& a, bool stopped, int number) {
  if (stopped) return Status::Cancelled("attempt saw its stop");
  if (!a.answer.ok()) return a.answer;
  return number;
}

}  // namespace scenario_internal

inline bool TurnExecutor::TrySubmit(SmallTask task) noexcept {
  if (stopped_) return false;
  try {
    threads_.push_back(clock_.Spawn([this, task] {
      task();
      --running_;
    }));
  } catch (const std::exception&) {
    return false;
  }
  ++running_;
  CountSubmitted();
  return true;
}

inline void TurnExecutor::Wait(std::unique_lock<std::mutex>& lock, std::condition_variable&, FunctionRef<bool()> done) {
  while (!done()) {
    lock.unlock();
    clock_.Await([&] {
      std::lock_guard relock(*lock.mutex());
      return done();
    });
    lock.lock();
  }
}

inline void TurnExecutor::Shutdown() {
  stopped_ = true;
  clock_.Await([this] { return running_ == 0; });
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

inline CallRecord BlockingDriver::Run(const PipelineRef& p, CallContext& ctx, const Script& script,
                                      bool with_fallback) {
  CallRecord rec;
  const TimePoint begin = clock_.Now();
  auto attempt = [&](CallContext& c) -> Result<int> {
    const std::size_t n = rec.attempt_starts.size();
    const ScriptedAttempt& a = scenario_internal::AttemptOf(script, n);
    const TimePoint start = clock_.Now();
    rec.attempt_starts.push_back(start - begin);
    rec.saw_stop.push_back(false);
    const bool finished = clock_.SleepUntil(start + a.takes, a.honours_stop ? c.stop : std::stop_token());
    rec.saw_stop[n] = c.stop.stop_requested();
    return scenario_internal::Answer(a, !finished, static_cast<int>(n) + 1);
  };
  rec.result = with_fallback ? p.Execute(ctx, attempt, FallbackValue) : p.Execute(ctx, attempt);
  rec.took = clock_.Now() - begin;
  return rec;
}

struct CompletionDriver::Pending {
  struct OnStop {
    Pending* p;
    void operator()() const noexcept { p->End(true); }
  };
  const ScriptedAttempt* script;
  int number;
  TimePoint end;
  std::optional<Completion<Result<int>>> done;
  std::stop_token stop;
  CallRecord* rec;
  std::optional<std::stop_callback<OnStop>> on_stop;

  void End(bool stopped) {
    if (!done) return;
    rec->saw_stop[static_cast<std::size_t>(number) - 1] = stop.stop_requested();
    Completion<Result<int>> d = std::move(*done);
    done.reset();
    d(scenario_internal::Answer(*script, stopped, number));
  }
};

inline CallRecord CompletionDriver::Run(const PipelineRef& p, CallContext& ctx, const Script& script,
                                        bool with_fallback) {
  CallRecord rec;
  bool ended = false;
  std::vector<std::unique_ptr<Pending>> pending;
  const TimePoint begin = clock_.Now();
  auto attempt = [&](CallContext& c, Completion<Result<int>> done) {
    const std::size_t n = rec.attempt_starts.size();
    const TimePoint start = clock_.Now();
    rec.attempt_starts.push_back(start - begin);
    rec.saw_stop.push_back(false);
    auto& a = *pending.emplace_back(std::make_unique<Pending>());
    a.script = &scenario_internal::AttemptOf(script, n);
    a.number = static_cast<int>(n) + 1;
    a.end = start + a.script->takes;
    a.done.emplace(std::move(done));
    a.stop = c.stop;
    a.rec = &rec;
    if (a.script->takes == Duration::zero()) return a.End(false);  // answers at once
    if (a.script->honours_stop) a.on_stop.emplace(c.stop, Pending::OnStop{&a});
  };
  auto finish = [&](Result<int> r) {
    rec.result = std::move(r);
    rec.took = clock_.Now() - begin;
    ended = true;
  };
  if (with_fallback) {
    p.ExecuteAsync<Result<int>>(ctx, attempt, finish, FallbackValue);
  } else {
    p.ExecuteAsync<Result<int>>(ctx, attempt, finish);
  }
  // Every attempt due in this tick ends, also one a hedge starts meanwhile
  // (by index: ending one may start another); then losers that ignore their
  // stop still end at their time, after the call has answered.
  auto end_due = [&] {
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (pending[k]->done && clock_.Now() >= pending[k]->end) pending[k]->End(false);
    }
  };
  auto running = [&] {
    for (auto& a : pending) {
      if (a->done) return true;
    }
    return false;
  };
  while (!ended) {
    clock_.Tick();
    end_due();
  }
  while (running()) {
    clock_.Tick();
    end_due();
  }
  for (auto& a : pending) a->on_stop.reset();
  return rec;
}

}  // namespace stormguard::testkit
