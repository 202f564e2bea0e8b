// stormguard/pipeline/pipeline.h: policies composed around a call, built once, run many times.
//
//   auto pipeline = PipelineBuilder({.listener = &counters})
//                       .AddFallback({.skip_when_remaining_below = 20ms})
//                       .AddTimeout(1s)                        // overall
//                       .AddRetry({.max_attempts = 3, .budget = budget})
//                       .AddAttemptTimeout(300ms)
//                       .Build();                              // Result<PipelineRef>
//   Result<Stock> r = pipeline->Execute(ctx, [&](CallContext& c) { return inventory.Get(c); });
//   Status s = pipeline->Execute(ctx, send_log, [](const Status&) { return Status::Ok(); });
//
// The FIRST policy added is the OUTERMOST. The usual order, outside in:
//   fallback        sees the final outcome of everything, including a
//                   rejection or an exhausted retry, and can skip the call
//                   when the remaining budget is too small (docs/deadlines.md);
//   timeout         the overall deadline: bounds all attempts and backoff
//                   waits together and cancels whatever runs when it passes;
//   retry (+budget) decides per attempt; everything below runs per attempt;
//   circuit breaker inside retry, so each attempt is recorded, and an open
//                   breaker's refusal (its pushback is the rest of the open
//                   wait, usually beyond the deadline) ends the retries at
//                   once instead of the retry loop hammering a dead service;
//   bulkhead / rate limiter / adaptive concurrency
//                   inside retry, so every attempt takes a slot or token
//                   (retries are load too) and no slot is held during a
//                   backoff wait; inside the breaker, so a call the breaker
//                   refuses costs no token;
//   attempt timeout innermost: bounds exactly one attempt;
//   the call.
//   (hedge          inside retry, when used: each attempt is hedged; outside
//                   retry every hedged attempt would run its own retries.)
// Build() rejects orders that cannot be meant, naming the stage: two
// stages of one built-in kind (two overall timeouts, two retries), a
// per-attempt timeout outside retry (it would bound all attempts), an
// overall timeout inside retry (it would restart per attempt), a fallback
// inside retry (it would hide failures from the retry), a hedge outside
// retry. Each stage declares its own rules (Stage::placement(), in its file
// under pipeline/stages/), and a custom stage added with Add() may declare
// its own; the builder applies them without knowing any stage kind.
//
// Typing: stages pass a Status; the value of a Result<T> call is stored in a
// slot in Execute's frame when the callable returns it, so one pipeline (per
// destination, say) serves calls of every result type, and no value is moved
// through the stages. Exceptions from the callable or the fallback are
// caught and classified (StatusFromException).
//
// Thread safety: a Pipeline is immutable; Execute may run concurrently from
// any number of threads. Allocation: Execute allocates nothing on the success
// path (stages hold their state; the per-call chain lives on the stack).
//
// Drivers: Execute blocks the calling thread; ExecuteAsync runs the same
// stages in their asynchronous form (async_stage.h) in one frame per call,
// so a waiting call holds memory instead of a thread. Once a thread is warm
// its calls allocate nothing on the success path: frames (and a hedge's
// branches) come from a per-thread block cache, timeouts' stop_sources from
// a per-thread pool; a hedged attempt still allocates its own stop_source
// (async_branch.h). With stormguard/asio/coroutine_driver.h,
// `co_await pipeline.Execute(ctx, attempt)` (on a PipelineRef) takes an attempt that returns
// an asio::awaitable (PipelineDriver below).
#pragma once

#include <atomic>
#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/pipeline/async_frame.h"
#include "stormguard/pipeline/stage.h"
#include "stormguard/pipeline/stages/all.h"

namespace stormguard {

class PipelineRef;  // pipeline_ref.h, included at the end

// What every stage of one pipeline shares.
struct PipelineOptions {
  Clock* clock = &Clock::Real();
  TimerService* timers = nullptr;  // null: TimerService::Default()
  Listener* listener = nullptr;    // every stage reports to it (optional; a ScopedListener names the pipeline)
  // How guards (breaker, adaptive concurrency) and the call's own attempt
  // events judge an outcome.
  const Classifier* classifier = &DefaultClassifier();
};

// Another driver's entry: PipelineRef::Execute with a callable whose result
// is neither Status nor Result<T> (an asio::awaitable, say) returns
// PipelineDriver<that result>::Execute(pinned, ctx, fn, fallback), where
// `pinned` is the fixed PipelineRef the call runs on (the driver keeps it
// until the call ends) and fallback is a G* (NoFallback* when none). The
// driver's header specialises it; pipeline/ knows no driver.
template <class AttemptResult>
struct PipelineDriver;

namespace pipeline_internal {

template <class R>
concept HasPipelineDriver = requires {
  sizeof(PipelineDriver<R>);
};

struct OwnedPipeline;  // pipeline.cc

template <class R>
inline constexpr bool kNotThroughPipelineRef = false;  // fails a static_assert, for R's name in the message

// Keeps a successful value. `claimed` is given when attempts run
// concurrently (hedging): the first success keeps its value.
template <class T>
Status Store(Result<T>&& r, std::optional<T>& slot, std::atomic<bool>* claimed = nullptr) {
  if (!r.ok()) return std::move(r).status();
  if (claimed == nullptr || !claimed->exchange(true, std::memory_order_acq_rel)) {
    slot.emplace(std::move(r).value());
  }
  return Status::Ok();
}

}  // namespace pipeline_internal

class Pipeline {
 public:
  template <class F>
  auto Execute(CallContext& ctx, F&& fn) const {
    return Dispatch(ctx, fn, static_cast<pipeline_internal::NoFallback*>(nullptr));
  }
  // `fallback(const Status& why)` returns what `fn` returns.
  template <class F, class G>
  auto Execute(CallContext& ctx, F&& fn, G&& fallback) const {
    return Dispatch(ctx, fn, &fallback);
  }

  // The completion driver: runs the same stages without holding a thread
  // while the call waits. `attempt(CallContext&, Completion<R>)` starts an
  // attempt and reports it through the handle, from any thread (R = Status
  // or Result<T>); `done(R)` is called exactly once, on the thread that
  // ended the call; `fallback(const Status&)` returns R. Waits are timers of
  // the pipeline's TimerService. `ctx`
  // must live until `done`; the pipeline may go away earlier. A pipeline
  // with a stage that has no asynchronous form (Stage::async()) answers
  // FAILED_PRECONDITION at once, naming it (see AsyncSupport()).
  template <class R = Status, class A, class D>
  void ExecuteAsync(CallContext& ctx, A attempt, D done) const {
    StartAsync<R, A, D, pipeline_internal::NoFallback>(ctx, std::move(attempt), std::move(done), std::nullopt, nullptr);
  }
  template <class R = Status, class A, class D, class G>
  void ExecuteAsync(CallContext& ctx, A attempt, D done, G fallback) const {
    StartAsync<R>(ctx, std::move(attempt), std::move(done), std::optional<G>(std::move(fallback)), nullptr);
  }
  // For another driver: the same, with waits on that driver's timers (an
  // event loop's), which must be on the pipeline's clock.
  template <class R = Status, class A, class D>
  void ExecuteAsync(AsyncTimers& timers, CallContext& ctx, A attempt, D done) const {
    StartAsync<R, A, D, pipeline_internal::NoFallback>(ctx, std::move(attempt), std::move(done), std::nullopt, &timers);
  }
  template <class R = Status, class A, class D, class G>
  void ExecuteAsync(AsyncTimers& timers, CallContext& ctx, A attempt, D done, G fallback) const {
    StartAsync<R>(ctx, std::move(attempt), std::move(done), std::optional<G>(std::move(fallback)), &timers);
  }
  // OK, or FAILED_PRECONDITION naming the first stage without an asynchronous form.
  const Status& AsyncSupport() const noexcept { return async_->unsupported; }
  // OK, or FAILED_PRECONDITION naming the first stage that cannot run under
  // Execute (a hedge added without an Executor), which Execute then answers
  // at once, running nothing (not even the fallback), as ExecuteAsync does
  // for AsyncSupport().
  const Status& BlockingSupport() const noexcept { return blocking_unsupported_; }

  // The type-erased core: runs the stages around `call`.
  Status Run(CallContext& ctx, FunctionRef<Status(CallContext&)> call,
             const FunctionRef<Status(const Status&)>* fallback) const;

  // Why a client that decides idempotency per request must refuse this
  // pipeline (a stage repeats every call, Stage::repeats_every_call), or
  // empty: "stages[1] (retry) has idempotent = true: it would repeat ...".
  std::string RepeatsEveryCall() const;

  // A stage runs attempts itself (a retry, a hedge): not for a server.
  bool runs_attempts() const noexcept { return !report_attempt_end_; }

  std::size_t size() const noexcept { return stages_.size(); }
  const Stage& stage(std::size_t i) const noexcept { return *stages_[i]; }
  // "fallback -> timeout(1s) -> retry(3 attempts) -> call"
  std::string Describe() const;

 private:
  friend class PipelineBuilder;
  friend struct pipeline_internal::OwnedPipeline;
  Pipeline() = default;  // made by PipelineBuilder::Build(), held by a PipelineRef

  template <class F, class G>
  auto Dispatch(CallContext& ctx, F& fn, G* fallback) const;
  template <class R, class A, class D, class G>
  void StartAsync(CallContext& ctx, A attempt, D done, std::optional<G> fallback, AsyncTimers* timers) const {
    static_assert(std::is_same_v<R, Status> || IsResult<R>::value, "R must be Status or Result<T>");
    if (!async_->unsupported.ok()) return done(R(async_->unsupported));
    pipeline_internal::AsyncFrame<R, A, D, G>::Launch(async_, ctx, timers != nullptr ? *timers : *async_->timers,
                                                      std::move(attempt), std::move(done), std::move(fallback));
  }

  std::vector<std::shared_ptr<const Stage>> stages_;
  Clock* clock_ = nullptr;
  const Classifier* classifier_ = nullptr;
  Listener* listener_ = nullptr;
  SuccessTally* tally_ = nullptr;      // the listener's (asked once at Build())
  bool report_attempt_start_ = false;  // the listener wants kAttemptStarted (asked once at Build())
  bool report_attempt_end_ = true;
  bool sampled_ = false;           // the listener's AttemptTiming, asked once at Build()
  bool listens_to_calls_ = false;  // the callable runs inside CallListened
  bool concurrent_ = false;        // a hedge stage runs the callable on several threads
  Status blocking_unsupported_;    // BlockingSupport()
  std::shared_ptr<const pipeline_internal::AsyncPlan> async_;
};

template <class F, class G>
auto Pipeline::Dispatch(CallContext& ctx, F& fn, G* fallback) const {
  using R = std::invoke_result_t<F&, CallContext&>;
  constexpr bool kHasFallback = !std::is_same_v<G, pipeline_internal::NoFallback>;
  if constexpr (std::is_same_v<R, Status>) {
    auto call = [&fn](CallContext& c) { return core_internal::InvokeCaught(fn, c); };
    if constexpr (kHasFallback) {
      auto fb = [fallback](const Status& why) { return core_internal::InvokeCaught<Status>(*fallback, why); };
      const FunctionRef<Status(const Status&)> ref(fb);
      return Run(ctx, call, &ref);
    } else {
      return Run(ctx, call, nullptr);
    }
  } else if constexpr (!IsResult<R>::value) {
    static_assert(pipeline_internal::kNotThroughPipelineRef<R>,
                  "the callable must return stormguard::Status or stormguard::Result<T>; an "
                  "asio::awaitable attempt runs through a PipelineRef, with "
                  "\"stormguard/asio/coroutine_driver.h\" included");
  } else {
    using T = typename R::value_type;
    std::optional<T> slot;
    std::atomic<bool> claimed{false};
    std::atomic<bool>* claim = concurrent_ ? &claimed : nullptr;
    auto call = [&](CallContext& c) {
      return pipeline_internal::Store(core_internal::InvokeCaught(fn, c), slot, claim);
    };
    Status s;
    if constexpr (kHasFallback) {
      auto fb = [&](const Status& why) {
        return pipeline_internal::Store(core_internal::InvokeCaught<R>(*fallback, why), slot);
      };
      const FunctionRef<Status(const Status&)> ref(fb);
      s = Run(ctx, call, &ref);
    } else {
      s = Run(ctx, call, nullptr);
    }
    if (!s.ok()) return R(std::move(s));
    if (!slot) return R(Status::Internal("pipeline: a stage reported success without running the call"));
    return R(std::move(*slot));
  }
}

class PipelineBuilder {
 public:
  explicit PipelineBuilder(PipelineOptions options = {});

  PipelineBuilder& AddFallback(FallbackOptions options = {});
  // The overall timeout ("timeout"): outside retry.
  PipelineBuilder& AddTimeout(TimeoutOptions options);
  PipelineBuilder& AddTimeout(Duration timeout) { return AddTimeout(TimeoutOptions{.timeout = timeout}); }
  // The per-attempt timeout ("attempt_timeout"): inside retry.
  PipelineBuilder& AddAttemptTimeout(TimeoutOptions options);
  PipelineBuilder& AddAttemptTimeout(Duration timeout) { return AddAttemptTimeout(TimeoutOptions{.timeout = timeout}); }
  // The pipeline's listener is used when options.listener is null.
  PipelineBuilder& AddRetry(RetryOptions options);
  PipelineBuilder& AddRequireIdempotencyKey();
  // Hedged attempts on `executor` (shared; must outlive the pipeline; only
  // Execute uses it: the asynchronous drivers start each attempt from an
  // event). Without one the pipeline runs only asynchronously (ExecuteAsync,
  // the coroutine driver); its Execute answers FAILED_PRECONDITION naming
  // the hedge (BlockingSupport()). The pipeline's listener is used when
  // options.listener is null.
  PipelineBuilder& AddHedge(HedgeOptions options);
  PipelineBuilder& AddHedge(HedgeOptions options, std::shared_ptr<Executor> executor);
  // Guards, shared (one guard may protect a destination for several
  // pipelines) or created here from options (their listener defaults to
  // the pipeline's; a breaker's timers, for its automatic transition, are
  // the pipeline's too). The shared forms are templates that take exactly the
  // guard's shared_ptr: a braced list deduces nothing, so
  // AddCircuitBreaker({.window_size = 20}) and AddCircuitBreaker({}) always
  // mean the options.
  template <std::same_as<CircuitBreaker> G>
  PipelineBuilder& AddCircuitBreaker(std::shared_ptr<G> breaker);
  PipelineBuilder& AddCircuitBreaker(CircuitBreakerOptions options);
  template <std::same_as<Bulkhead> G>
  PipelineBuilder& AddBulkhead(std::shared_ptr<G> bulkhead);
  PipelineBuilder& AddBulkhead(BulkheadOptions options);
  template <std::same_as<RateLimiter> G>
  PipelineBuilder& AddRateLimiter(std::shared_ptr<G> limiter);
  PipelineBuilder& AddRateLimiter(RateLimiterOptions options);
  template <std::same_as<AdaptiveLimiter> G>
  PipelineBuilder& AddAdaptiveConcurrency(std::shared_ptr<G> limiter);
  PipelineBuilder& AddAdaptiveConcurrency(AdaptiveLimiterOptions options);
  template <std::same_as<AdaptiveThrottle> G>
  PipelineBuilder& AddAdaptiveThrottle(std::shared_ptr<G> throttle);
  PipelineBuilder& AddAdaptiveThrottle(AdaptiveThrottleOptions options);
  // A fleet-wide limit: shared only, since its lease store and refreshes
  // belong to the program (global_rate_limit_stage.h).
  template <std::same_as<GlobalRateLimiter> G>
  PipelineBuilder& AddGlobalRateLimit(std::shared_ptr<G> limiter);
  // Fault injection (chaos_stage.h): inside the retry, innermost, unless
  // options.outside_retry_because says why not.
  PipelineBuilder& AddChaos(std::shared_ptr<ChaosPolicy> policy, ChaosStageOptions options = {});
  // Any stage, at this position (shared: one stage may serve several pipelines).
  PipelineBuilder& Add(std::shared_ptr<const Stage> stage);

  // Every bad option and every ordering mistake, each naming its stage:
  // INVALID_ARGUMENT "pipeline: stages[2] (timeout): ...; ...". The
  // handle owns the pipeline (pipeline_ref.h).
  Result<PipelineRef> Build() const;

  const PipelineOptions& options() const noexcept { return o_; }

 private:
  template <class S>
  PipelineBuilder& AddCreated(const StagePlacement& placement, Result<std::unique_ptr<S>> stage);
  template <class S, class G, class... Args>
  PipelineBuilder& AddGuard(std::shared_ptr<G> guard, Args&&... args);
  template <class S, class G, class O, class... Args>
  PipelineBuilder& AddGuardFrom(O options, Args&&... args);
  PipelineBuilder& AddHedgeOn(HedgeOptions options, std::shared_ptr<Executor> executor);  // null: async only
  // Records a stage whose options are invalid; false when `errors` is empty.
  bool Invalid(const StagePlacement& placement, const std::vector<std::string>& errors);
  std::string Where(std::size_t i) const;  // "stages[2] (retry): "
  std::shared_ptr<const pipeline_internal::AsyncPlan> MakeAsyncPlan(bool report_attempt_start, bool report_attempt_end,
                                                                    bool sampled) const;

  PipelineOptions o_;
  std::vector<StagePlacement> placements_;            // one per Add, even a failed one
  std::vector<std::shared_ptr<const Stage>> stages_;  // null where creation failed
  std::vector<std::string> errors_;
};

}  // namespace stormguard

#include "stormguard/pipeline/pipeline_ref.h"  // NOLINT(misc-header-include-cycle): Build() returns it
