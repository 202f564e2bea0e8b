// The coroutine driver (stormguard/asio/coroutine_driver.h) on a real io_context.
//
// BM_Async_Pipeline_Success: timeout + retry + circuit breaker + bulkhead
//   around an attempt that is a ready awaitable; compare with
//   BM_Async_Baseline (co_await of the same attempt, no stormguard) in the
//   same run, and with the floors BM_Async_Baseline_OwnSlot and
//   BM_Async_Baseline_TimerRace (below). allocs_per_call counts every heap allocation, coroutine frames
//   that Asio's per-thread cache does not recycle included.
// BM_Async_Backoff_100k: one io_context thread holds 100,000 calls waiting
//   in a 1 s backoff (real steady_timers) and completes them all;
//   BM_Async_Backoff_100k_Baseline does the same with 100,000 coroutines
//   each awaiting a 1 s steady_timer, no stormguard: the difference in
//   bytes_per_waiting_call is what stormguard adds to a waiting call.
//   bytes_per_waiting_call is the heap in use (glibc mallinfo2: Asio
//   allocates its frames with aligned_alloc, which the operator new counter
//   does not see) once all have started, over the calls then waiting
//   (waiting_at_peak: on a slow machine the first may be done before the
//   last starts); wall_s is from the first start to the last answer.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>

#include "bench_util.h"
#include "stormguard/asio/coroutine_driver.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

asio::awaitable<Result<int>> ReadyAttempt(CallContext&) { co_return OpaqueSuccess(); }
// The same, as a plain value: co_spawn and `||` need a default-constructible result.
asio::awaitable<int> ReadyValue() { co_return OpaqueSuccess(); }

const PipelineRef& SuccessPipeline() {
  static const PipelineRef* const pipeline = [] {
    PipelineBuilder b;
    b.AddTimeout(1s).AddRetry({.max_attempts = 3}).AddCircuitBreaker({}).AddBulkhead({.max_concurrent = 1000});
    return new PipelineRef(std::move(b.Build()).value());
  }();
  return *pipeline;
}

// Runs `call(ctx)` once per iteration inside one coroutine on `io`.
template <class Call>
asio::awaitable<void> Loop(benchmark::State& state, Call call) {
  CallContext ctx;
  for (int i = 0; i < 100; ++i) (void)co_await call(ctx);  // fills Asio's and the timers' per-thread pools
  std::int64_t failed = 0;
  AllocationMeter allocs(state);
  for (auto _ : state) {
    Result<int> r = co_await call(ctx);
    if (!r.ok()) [[unlikely]]
      ++failed;
    benchmark::DoNotOptimize(r);
  }
  if (failed > 0) state.SkipWithError("a call failed: the benchmark is misconfigured");
}

template <class Call>
void RunLoop(benchmark::State& state, Call call) {
  asio::io_context io;
  asio::co_spawn(io, Loop(state, call), asio::detached);
  io.run();
}

void BM_Async_Baseline(benchmark::State& state) {
  RunLoop(state, [](CallContext& ctx) { return ReadyAttempt(ctx); });
}
BENCHMARK(BM_Async_Baseline);

// Floors: what Asio itself charges for the two things every attempt of the
// coroutine driver needs, with no stormguard code. An attempt that can be
// cancelled on its own (its own coroutine thread, its own cancellation
// slot), and one raced against a timer by hand (Asio's `||`, the usual
// hand-written per-attempt timeout).
void BM_Async_Baseline_OwnSlot(benchmark::State& state) {
  asio::cancellation_signal signal;
  RunLoop(state, [&signal](CallContext& ctx) -> asio::awaitable<Result<int>> {
    (void)ctx;
    co_return co_await asio::co_spawn(co_await asio::this_coro::executor, ReadyValue(),
                                      asio::bind_cancellation_slot(signal.slot(), asio::use_awaitable));
  });
}
BENCHMARK(BM_Async_Baseline_OwnSlot);

void BM_Async_Baseline_TimerRace(benchmark::State& state) {
  RunLoop(state, [](CallContext& ctx) -> asio::awaitable<Result<int>> {
    using namespace asio::experimental::awaitable_operators;
    asio::steady_timer timer(co_await asio::this_coro::executor, 1s);
    (void)ctx;
    auto won = co_await (ReadyValue() || timer.async_wait(asio::use_awaitable));
    co_return won.index() == 0 ? Result<int>(std::get<0>(won)) : Result<int>(Status::DeadlineExceeded("timer"));
  });
}
BENCHMARK(BM_Async_Baseline_TimerRace);

void BM_Async_Pipeline_Success(benchmark::State& state) {
  RunLoop(state, [](CallContext& ctx) { return SuccessPipeline().Execute(ctx, ReadyAttempt); });
}
BENCHMARK(BM_Async_Pipeline_Success);

constexpr int kWaitingCalls = 100'000;

std::size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

struct Scale {
  const PipelineRef* pipeline = nullptr;
  int waiting = 0;  // calls in their backoff
  int answered = 0;
  std::size_t bytes_at_peak = 0;
  int waiting_at_peak = 0;
};

// First attempt fails, the retry waits 1 s, the second succeeds.
asio::awaitable<Result<int>> FailsFirst(CallContext& ctx) {
  co_return ctx.attempt == 1 ? Result<int>(Status::Unavailable("down")) : Result<int>(1);
}

asio::awaitable<void> OneWaitingCall(Scale& s) {
  CallContext ctx;
  ++s.waiting;  // from its first attempt until it is answered
  Result<int> r = co_await s.pipeline->Execute(ctx, FailsFirst);
  --s.waiting;
  if (r.ok()) ++s.answered;
}

asio::awaitable<void> OneWaitingTimer(Scale& s) {
  ++s.waiting;
  asio::steady_timer t(co_await asio::this_coro::executor, 1s);
  co_await t.async_wait(asio::use_awaitable);
  --s.waiting;
  ++s.answered;
}

// Starts every call from the io_context's thread, so each runs inline up to
// its backoff; then the heap holds exactly the waiting calls.
template <class Waiter>
asio::awaitable<void> StartAll(Scale& s, std::size_t before, Waiter waiter) {
  auto ex = co_await asio::this_coro::executor;
  for (int i = 0; i < kWaitingCalls; ++i) asio::co_spawn(ex, waiter(s), asio::detached);
  s.bytes_at_peak = HeapInUse() - before;
  s.waiting_at_peak = s.waiting;
}

template <class Waiter>
void RunWaiting(benchmark::State& state, const PipelineRef* p, Waiter waiter) {
  for (auto _ : state) {
    asio::io_context io;
    Scale s{.pipeline = p};
    const std::size_t before = HeapInUse();
    const auto start = std::chrono::steady_clock::now();
    asio::co_spawn(io, StartAll(s, before, waiter), asio::detached);
    io.run();
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
    if (s.answered != kWaitingCalls) state.SkipWithError("not every call was answered");
    state.counters["waiting_at_peak"] = s.waiting_at_peak;
    state.counters["bytes_per_waiting_call"] =
        static_cast<double>(s.bytes_at_peak) / static_cast<double>(std::max(s.waiting_at_peak, 1));
    state.counters["wall_s"] = wall.count();
  }
}

void BM_Async_Backoff_100k(benchmark::State& state) {
  PipelineRef p = PipelineBuilder()
                      .AddRetry({.max_attempts = 2,
                                 .backoff = {.kind = BackoffKind::kConstant, .base = 1s, .jitter = Jitter::kNone}})
                      .Build()
                      .value();
  RunWaiting(state, &p, OneWaitingCall);
}
BENCHMARK(BM_Async_Backoff_100k)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_Async_Backoff_100k_Baseline(benchmark::State& state) { RunWaiting(state, nullptr, OneWaitingTimer); }
BENCHMARK(BM_Async_Backoff_100k_Baseline)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace stormguard::bench
