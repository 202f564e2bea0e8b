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
//   CallRecord Run(const Pipeline&, CallContext&, const Script&, bool with_fallback);
// BlockingDriver and CompletionDriver are here. Another driver (an event
// loop's, in its own test binary) writes its class, includes
// pipeline_scenarios.h and instantiates the suite for it:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Asio, PipelineScenarios, AsioDriver);
// Its waits may use ScenarioClock::timers() through an AsyncTimers of its
// own (Pipeline::ExecuteAsync(timers, ...)).
#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

#include "pipeline/pipeline_test_util.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard::testing {

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
// sleeps on it: its SleepUntil ticks the clock until the time or the stop.
class ScenarioClock final : public Clock {
 public:
  static constexpr Duration kTick = std::chrono::milliseconds(1);
  static constexpr int kMaxTicks = 600'000;  // ten virtual minutes: a hung scenario fails

  ScenarioClock() : timers_(TimerService::Create(*this, {.background_thread = false}).value()) {}

  TimePoint Now() const noexcept override { return TimePoint(Duration(now_.load())); }
  bool SleepUntil(TimePoint t, std::stop_token stop) override;

  TimerService& timers() noexcept { return *timers_; }
  // Runs `hook` once, in the tick that reaches `at`.
  void At(TimePoint at, std::function<void()> hook) { hooks_.push_back({at, std::move(hook)}); }
  // One tick: move 1 ms, fire due timers, run due hooks.
  void Tick();
  void Idle(Duration d) {
    for (Duration done{}; done < d; done += kTick) Tick();
  }

 private:
  struct Hook {
    TimePoint at;
    std::function<void()> run;
  };
  std::atomic<Duration::rep> now_{std::chrono::hours(1).count() * 1'000'000'000LL};
  std::shared_ptr<TimerService> timers_;
  std::vector<Hook> hooks_;
  int ticks_ = 0;
};

// Execute() on the calling thread; an attempt sleeps on the clock, which
// ticks while it waits.
class BlockingDriver {
 public:
  ScenarioClock& clock() { return clock_; }
  PipelineOptions options(Listener* listener = nullptr) {
    return {.clock = &clock_, .timers = &clock_.timers(), .listener = listener};
  }
  CallRecord Run(const Pipeline& p, CallContext& ctx, const Script& script, bool with_fallback);

 private:
  ScenarioClock clock_;
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
  CallRecord Run(const Pipeline& p, CallContext& ctx, const Script& script, bool with_fallback);

 private:
  struct Pending;
  ScenarioClock clock_;
};


inline bool ScenarioClock::SleepUntil(TimePoint t, std::stop_token stop) {
  for (;;) {
    if (stop.stop_requested()) return false;
    if (Now() >= t) return true;
    Tick();
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

inline CallRecord BlockingDriver::Run(const Pipeline& p, CallContext& ctx, const Script& script, bool with_fallback) {
  CallRecord rec;
  const TimePoint begin = clock_.Now();
  auto attempt = [&](CallContext& c) -> Result<int> {
    const std::size_t n = rec.attempt_starts.size();
    const ScriptedAttempt& a = scenario_internal::AttemptOf(script, n);
    const TimePoint start = clock_.Now();
    rec.attempt_starts.push_back(start - begin);
    const bool finished = clock_.SleepUntil(start + a.takes, a.honours_stop ? c.stop : std::stop_token());
    rec.saw_stop.push_back(c.stop.stop_requested());
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

inline CallRecord CompletionDriver::Run(const Pipeline& p, CallContext& ctx, const Script& script, bool with_fallback) {
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

}  // namespace stormguard::testing
