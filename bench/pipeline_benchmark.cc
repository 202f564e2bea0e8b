// A whole pipeline around a call that succeeds: what a healthy call pays for
// its policies. Compare with BM_Baseline_DirectCall in the same run.
//
// BM_Pipeline_Success: timeout + retry (with a token-bucket retry
//   budget) + circuit breaker + bulkhead + rate limiter (issue 11: <= 3.5x
//   BM_Baseline_ClockNow and <= 75 ns, zero allocations, 2 threads >= 1.8x
//   the throughput of one). Its clock reads are pinned by
//   tests/pipeline/success_path_clock_test.cc.
// BM_Pipeline_Success_FixedHandle: the same pipeline called through the
//   PipelineRef that Build() returned (issue 27: within 3 ns of
//   BM_Pipeline_Success); a live handle's cost is BM_Registry_FollowedCall.
// BM_Pipeline_Success_Metrics: the same pipeline reporting to a
//   MetricsListener instance (issue 14: <= 5 ns more than
//   BM_Pipeline_Success in the same run).
// BM_Pipeline_Success_NullListener: the same with a listener that does
//   nothing and times every attempt (AttemptTiming::kEvery, the default): the
//   pipeline reads the precise clock once more, right after the call, and
//   the stages on the way out share that reading instead of the coarse one.
//   The metrics listener samples instead (kSampled): after a fast attempt it
//   reads the precise clock for 1 call in 16 only, as
//   tests/pipeline/success_path_clock_test.cc pins, so it can cost less
//   than this null listener.
// BM_Pipeline_Success_Metrics_ClockReads: BM_Pipeline_Success_Metrics on a
//   clock that counts the calling thread's reads of the real clock
//   (precise_reads_per_call, coarse_reads_per_call, clock_reads_per_call;
//   issue 31: <= 3.0 reads per call). The wrapper makes its time a little
//   slower than the row it counts for.
// BM_Pipeline_CockatielEquivalent: timeout + retry + breaker + bulkhead, the
//   pipeline bench/peers/cockatiel_pipeline.js runs with cockatiel.
// Any allocation on the success path fails the run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <optional>

#include "bench_util.h"
#include "stormguard/metrics/metrics_listener.h"
#include "stormguard/pipeline/pipeline.h"
#include "stormguard/retry/token_bucket_budget.h"

namespace stormguard::bench {
namespace {
using namespace std::chrono_literals;

// Guards sized so that no call is ever refused: the benchmark measures the
// admitted path.
PipelineBuilder& AddCommonGuards(PipelineBuilder& b) {
  return b.AddCircuitBreaker({}).AddBulkhead({.max_concurrent = 1000});
}

PipelineRef BuildFullPipeline(Listener* listener, Clock& clock = Clock::Real(), TimerService* timers = nullptr) {
  PipelineBuilder b({.clock = &clock, .timers = timers, .listener = listener});
  b.AddTimeout(1s).AddRetry({.max_attempts = 3, .budget = TokenBucketBudget::Create({}).value()});
  AddCommonGuards(b).AddRateLimiter({.rate = 1e9, .burst = 1'000'000'000});
  return std::move(b.Build()).value();
}

const PipelineRef& FullPipeline() {
  static const PipelineRef* const pipeline = new PipelineRef(BuildFullPipeline(nullptr));
  return *pipeline;
}

MetricsListener& Metrics() {
  static MetricsListener* const metrics = new MetricsListener;
  return *metrics;
}

// Reports go nowhere: what a listener that times every attempt costs (one
// clock read after the call, and the events).
struct NullListener final : Listener {
  void OnEvent(const Event&) noexcept override {}
};

const PipelineRef& FullPipelineWithNullListener() {
  static NullListener* const listener = new NullListener;
  static const PipelineRef* const pipeline = new PipelineRef(BuildFullPipeline(listener));
  return *pipeline;
}

const PipelineRef& FullPipelineWithMetrics() {
  static const PipelineRef* const pipeline = new PipelineRef(BuildFullPipeline(&Metrics().For("payments")));
  return *pipeline;
}

// The real clock, counting what the calling thread reads of it.
class CountingRealClock final : public Clock {
 public:
  TimePoint Now() const noexcept override {
    ++precise_reads;
    return Clock::Real().Now();
  }
  TimePoint CoarseNow() const noexcept override {
    ++coarse_reads;
    return Clock::Real().CoarseNow();
  }
  bool SleepUntil(TimePoint t, std::stop_token stop) override { return Clock::Real().SleepUntil(t, std::move(stop)); }

  static inline thread_local std::uint64_t precise_reads = 0;
  static inline thread_local std::uint64_t coarse_reads = 0;
};

// Reports the calling thread's reads of a CountingRealClock per iteration.
class ClockReadsMeter {
 public:
  explicit ClockReadsMeter(benchmark::State& state)
      : state_(state), precise_(CountingRealClock::precise_reads), coarse_(CountingRealClock::coarse_reads) {}
  ~ClockReadsMeter() {
    const double calls = std::max<double>(static_cast<double>(state_.iterations()), 1);
    const auto precise = static_cast<double>(CountingRealClock::precise_reads - precise_);
    const auto coarse = static_cast<double>(CountingRealClock::coarse_reads - coarse_);
    using benchmark::Counter;
    state_.counters["precise_reads_per_call"] = Counter(precise / calls, Counter::kAvgThreads);
    state_.counters["coarse_reads_per_call"] = Counter(coarse / calls, Counter::kAvgThreads);
    state_.counters["clock_reads_per_call"] = Counter((precise + coarse) / calls, Counter::kAvgThreads);
  }

 private:
  benchmark::State& state_;
  std::uint64_t precise_;
  std::uint64_t coarse_;
};

// The metrics pipeline with every clock it reads counted, its timers' too
// (their own thread's reads are not the call's, and are not counted).
const PipelineRef& FullPipelineWithMetricsOnCountingClock() {
  static const PipelineRef* const pipeline = [] {
    static CountingRealClock* const clock = new CountingRealClock;
    static const auto* const timers = new std::shared_ptr<TimerService>(TimerService::Create(*clock).value());
    return new PipelineRef(BuildFullPipeline(&Metrics().For("counted"), *clock, timers->get()));
  }();
  return *pipeline;
}

const PipelineRef& CockatielEquivalent() {
  static const PipelineRef* const pipeline = [] {
    PipelineBuilder b;
    b.AddTimeout(1s).AddRetry({.max_attempts = 3});
    AddCommonGuards(b);
    return new PipelineRef(std::move(b.Build()).value());
  }();
  return *pipeline;
}

// `pipeline` is a Pipeline (the call made directly) or a PipelineRef (through the handle).
template <class P>
void RunPipeline(benchmark::State& state, const P& pipeline, bool count_clock_reads = false) {
  CallContext ctx;
  auto call = [](CallContext&) { return OpaqueSuccess() == 1 ? Status::Ok() : Status::Internal("unreachable"); };
  for (int i = 0; i < 100; ++i) (void)pipeline.Execute(ctx, call);  // fills the per-thread pools
  std::int64_t failed = 0;
  std::optional<ClockReadsMeter> reads;  // reports after the allocation meter has counted
  if (count_clock_reads) reads.emplace(state);
  AllocationMeter allocs(state);
  const std::uint64_t before = ThreadAllocations();
  for (auto _ : state) {
    Status s = pipeline.Execute(ctx, call);
    if (!s.ok()) [[unlikely]]
      ++failed;
    benchmark::DoNotOptimize(s);
  }
  const std::uint64_t allocated = ThreadAllocations() - before;
  if (failed > 0) state.SkipWithError("a call failed: the benchmark is misconfigured");
  if (allocated > 0) state.SkipWithError("the success path allocated");
}

void BM_Pipeline_Success(benchmark::State& state) { RunPipeline(state, *FullPipeline()); }
BENCHMARK(BM_Pipeline_Success);
BENCHMARK(BM_Pipeline_Success)->Threads(2);

// The same pipeline through the fixed handle Build() returned.
void BM_Pipeline_Success_FixedHandle(benchmark::State& state) { RunPipeline(state, FullPipeline()); }
BENCHMARK(BM_Pipeline_Success_FixedHandle);

void BM_Pipeline_Success_NullListener(benchmark::State& state) { RunPipeline(state, *FullPipelineWithNullListener()); }
BENCHMARK(BM_Pipeline_Success_NullListener);

void BM_Pipeline_Success_Metrics(benchmark::State& state) { RunPipeline(state, *FullPipelineWithMetrics()); }
BENCHMARK(BM_Pipeline_Success_Metrics);
BENCHMARK(BM_Pipeline_Success_Metrics)->Threads(2);

void BM_Pipeline_Success_Metrics_ClockReads(benchmark::State& state) {
  RunPipeline(state, *FullPipelineWithMetricsOnCountingClock(), /*count_clock_reads=*/true);
}
BENCHMARK(BM_Pipeline_Success_Metrics_ClockReads);

void BM_Pipeline_CockatielEquivalent(benchmark::State& state) { RunPipeline(state, *CockatielEquivalent()); }
BENCHMARK(BM_Pipeline_CockatielEquivalent);
BENCHMARK(BM_Pipeline_CockatielEquivalent)->Threads(2);

}  // namespace
}  // namespace stormguard::bench
