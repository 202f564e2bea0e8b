// The coroutine driver as the scenario suite sees it: every call is a
// coroutine on one io_context whose timers (the pipeline's and the
// attempts') run on the ScenarioClock's virtual time; the loop ticks the
// clock and polls the io_context until the call is answered.
#pragma once

#include <asio/bind_cancellation_slot.hpp>
#include <asio/co_spawn.hpp>
#include <asio/executor_work_guard.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/io_context.hpp>
#include <exception>

#include "stormguard/asio/coroutine_driver.h"
#include "virtual_time.h"

namespace stormguard::testkit {

// Rethrows what a spawned test coroutine threw, out of io.poll().
inline void Rethrow(std::exception_ptr e) {
  if (e) std::rethrow_exception(e);
}

class AsioDriver {
 public:
  AsioDriver() { UseTimers(io_, timers_); }

  ScenarioClock& clock() { return clock_; }
  asio::io_context& io() { return io_; }
  PipelineOptions options(Listener* listener = nullptr) {
    return {.clock = &clock_, .timers = &clock_.timers(), .listener = listener};
  }
  // Polls, then ticks and polls until `done` (virtual time is bounded).
  void RunUntil(const bool& done) {
    io_.restart();                           // a context that ran out of work stays stopped
    auto busy = asio::make_work_guard(io_);  // ... so it must not run out while the call waits
    io_.poll();
    while (!done) {
      clock_.Tick();
      io_.poll();
    }
  }
  // Waits `d` of virtual time in the attempt; false when cancelled first.
  static asio::awaitable<bool> Wait(Duration d, bool honours_cancel) {
    VirtualTimer t(co_await asio::this_coro::executor, VirtualClock::now() + d);
    if (!honours_cancel) {
      co_await t.async_wait(asio::bind_cancellation_slot(asio::cancellation_slot(), asio::use_awaitable));
      co_return true;
    }
    auto [ec] = co_await t.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    co_return !ec;
  }
  CallRecord Run(const PipelineRef& p, CallContext& ctx, const Script& script, bool with_fallback);

 private:
  ScenarioClock clock_;
  UseVirtualClock use_clock_{clock_};
  asio::io_context io_;
  VirtualTimers timers_{io_.get_executor(), clock_};  // gone before io_
};

inline CallRecord AsioDriver::Run(const PipelineRef& p, CallContext& ctx, const Script& script, bool with_fallback) {
  CallRecord rec;
  bool ended = false;
  const TimePoint begin = clock_.Now();
  auto attempt = [&](CallContext& c) -> asio::awaitable<Result<int>> {
    const std::size_t n = rec.attempt_starts.size();
    const ScriptedAttempt& a = scenario_internal::AttemptOf(script, n);
    rec.attempt_starts.push_back(clock_.Now() - begin);
    rec.saw_stop.push_back(false);  // hedged attempts overlap: each writes its own entry when it ends
    bool finished = true;
    if (a.takes > Duration::zero()) finished = co_await Wait(a.takes, a.honours_stop);
    rec.saw_stop[n] = c.stop.stop_requested();
    co_return scenario_internal::Answer(a, !finished, static_cast<int>(n) + 1);
  };
  auto call = [&]() -> asio::awaitable<void> {
    if (with_fallback) {
      rec.result = co_await p.Execute(ctx, attempt, FallbackValue);
    } else {
      rec.result = co_await p.Execute(ctx, attempt);
    }
    rec.took = clock_.Now() - begin;
    ended = true;
  };
  asio::co_spawn(io_, call(), Rethrow);
  RunUntil(ended);
  return rec;
}

}  // namespace stormguard::testkit
