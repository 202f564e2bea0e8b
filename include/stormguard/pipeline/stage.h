// stormguard/pipeline/stage.h: one policy of a pipeline, and the rest of the call.
//
// A Stage wraps the rest of the pipeline: it may refuse (returning a Status
// whose source() names it), call `next` once or several times, and look at
// what came back. Stages are built once, are immutable, and run concurrently
// for every call of every thread:
//
//   class Audit final : public Stage {
//     std::string_view name() const noexcept override { return "audit"; }
//     Status Execute(CallContext& ctx, Next next) const override {
//       if (ctx.idempotency_key.empty()) return Status::FailedPrecondition("no key").WithSource(name());
//       return next(ctx);
//     }
//   };
//
// The status path is type-erased: a stage sees only the Status of what ran
// inside it; the callable's value (for Result<T> calls) goes straight into a
// slot in Pipeline::Execute's frame and never travels through the stages.
//
// A stage may declare where it belongs (placement(): its ordering rules and
// what the pipeline must know about it). The default, which suits a stage
// like Audit, goes anywhere, any number of times; one that must run once per
// attempt says so, and the builder refuses it outside the retry:
//
//   static constexpr PlacementRule kRules[] = {
//       {PlacementRule::kInside, "retry", "it checks every attempt; add it after AddRetry"}};
//   StagePlacement placement() const noexcept override { return {.rules = kRules}; }
//
// The asynchronous drivers run a stage's async() form instead of Execute
// (async_stage.h): the same decisions, resumed by events instead of a
// blocked thread. A stage without one runs only under the blocking driver;
// one that needs what only the blocking driver uses (a hedge's Executor)
// and lacks it says so (blocking_unsupported()) and runs only under the
// asynchronous ones.
//
// Thread safety: Execute is const and called concurrently. A stage calls
// `next` from the thread that called it, one call at a time; to run the rest
// of the pipeline on several threads at once (hedging), it gives each thread
// its own NextBranch. `next` lives only for the duration of Execute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "stormguard/core/call_context.h"
#include "stormguard/core/classifier.h"
#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/function_ref.h"
#include "stormguard/core/internal/attempt_sampler.h"
#include "stormguard/core/result.h"
#include "stormguard/core/status.h"
#include "stormguard/core/success_tally.h"
#include "stormguard/pipeline/stage_placement.h"

namespace stormguard {

class Stage;
class AsyncStage;

namespace pipeline_internal {

// One execution of a pipeline: lives in Pipeline::Execute's frame and is
// used by one thread at a time.
struct Invocation {
  const std::shared_ptr<const Stage>* stages;
  std::size_t size;
  FunctionRef<Status(CallContext&)> call;
  const FunctionRef<Status(const Status&)>* fallback;  // null: the call site gave none
  Listener* listener;   // null also when the call needs no listening (Pipeline::listens_to_calls_)
  SuccessTally* tally;  // the listener's, or null
  Clock* clock;
  const Classifier* classifier;
  bool report_attempt_start;        // the listener wants kAttemptStarted
  bool report_attempt_end;          // no stage reports attempt ends, so the call does
  bool sampled;                     // the listener asked for AttemptTiming::kSampled
  mutable std::uint32_t calls = 0;  // times the callable was entered
  mutable bool has_now = false;     // `now` was read since the callable last ran
  mutable bool has_coarse = false;  // `coarse` was read since then
  mutable TimePoint now{};
  mutable TimePoint coarse{};
};

// The callable with kAttemptStarted and kAttemptEnded events around it, each
// when the listener wants it and no stage reports it instead.
// The attempt starts at the pass's reading (or a fresh one when no stage
// took it). For a listener that times every attempt, the reading after the
// call becomes the pass's reading on the way out, so the retry's latency and
// the stages' end times share it. For a sampled one, the stages on the way
// out share the coarse reading as without a listener, and the precise clock
// is read only for the attempts it times (core/internal/attempt_sampler.h).
Status CallListened(const Invocation& inv, CallContext& ctx);

// Reports the end of attempt `attempt` that the pipeline timed as `end`, or
// counts it in `tally` (when not null) if it succeeded untimed.
void ReportCallEnded(Listener& listener, SuccessTally* tally, const core_internal::AttemptEnd& end, int attempt,
                     OutcomeClass outcome) noexcept;

}  // namespace pipeline_internal

// The rest of the pipeline, as seen from one stage. Two words; pass by value.
class Next {
 public:
  Status operator()(CallContext& ctx) const;

  // The time, read from the pipeline's clock once per pass: stages on the
  // way in share one reading, which is dropped when the callable starts, so
  // the first stage on the way out reads afresh (with a listener that times
  // every attempt, the pipeline reads it right after the call). A stage
  // that waits (a retry backoff, a queue) must call ForgetNow() after waiting.
  TimePoint Now() const noexcept {
    if (!inv_->has_now) {
      inv_->now = inv_->clock->Now();
      inv_->has_now = true;
    }
    return inv_->now;
  }
  void ForgetNow() const noexcept { inv_->has_now = inv_->has_coarse = false; }
  // The pass's reading when there is one, else the coarse clock (a few ms
  // behind, also read once per pass): for timestamps where milliseconds do
  // not matter (events, statistics windows), so they cost no precise clock
  // read of their own.
  TimePoint CheapNow() const noexcept {
    if (inv_->has_now) return inv_->now;
    if (!inv_->has_coarse) {
      inv_->coarse = inv_->clock->CoarseNow();
      inv_->has_coarse = true;
    }
    return inv_->coarse;
  }

  // How many times the callable has been entered in this execution: a guard
  // compares it before and after `next` to tell whether its attempt reached
  // the callable or was refused further in.
  std::uint32_t calls() const noexcept { return inv_->calls; }

  // Whether the call site supplied a fallback, and running it with the
  // failure that triggered it (the fallback stage uses these).
  bool has_fallback() const noexcept { return inv_->fallback != nullptr; }
  Status Fallback(const Status& why) const { return (*inv_->fallback)(why); }

  // Counts calls that ran in branches (NextBranch) of this execution.
  void AddCalls(std::uint32_t n) const noexcept { inv_->calls += n; }

 private:
  friend class Pipeline;
  friend class NextBranch;
  Next(const pipeline_internal::Invocation& inv, std::size_t index) noexcept : inv_(&inv), index_(index) {}

  const pipeline_internal::Invocation* inv_;
  std::size_t index_;
};

// An independent copy of the rest of the pipeline for one thread of a stage
// that runs it concurrently: its clock reading and call count are its own.
// When every branch has ended, add their calls() to the parent (AddCalls).
class NextBranch {
 public:
  explicit NextBranch(const Next& parent) noexcept : inv_(*parent.inv_), index_(parent.index_) {
    inv_.calls = 0;
    inv_.has_now = inv_.has_coarse = false;
  }
  Status operator()(CallContext& ctx) const { return Next(inv_, index_)(ctx); }
  std::uint32_t calls() const noexcept { return inv_.calls; }

 private:
  pipeline_internal::Invocation inv_;
  std::size_t index_;
};

class Stage {
 public:
  virtual ~Stage() = default;

  // The policy's name in events and in Status::source(): "retry", "timeout".
  virtual std::string_view name() const noexcept = 0;
  // The stage with its main numbers, for Pipeline::Describe(): "timeout(1s)".
  virtual std::string Describe() const { return std::string(name()); }
  // Where it may sit in a pipeline; by default anywhere, any number of times.
  virtual StagePlacement placement() const noexcept { return {}; }
  // Repeats a call after an ambiguous outcome whatever the call says (a
  // retry or hedge with `idempotent` set): the clients of a transport, which
  // decide per request, refuse such a pipeline (Pipeline::RepeatsEveryCall).
  virtual bool repeats_every_call() const noexcept { return false; }

  virtual Status Execute(CallContext& ctx, Next next) const = 0;

  // The same policy in continuation-passing style, for the asynchronous
  // drivers (async_stage.h); null: this stage runs only under the blocking one.
  virtual const AsyncStage* async() const noexcept { return nullptr; }
  // Why this stage cannot run under the blocking driver (Execute), or empty:
  // a hedge built without an Executor has no thread for its hedged attempts.
  // The pipeline's Execute then answers FAILED_PRECONDITION naming it.
  virtual std::string_view blocking_unsupported() const noexcept { return {}; }
};

inline Status Next::operator()(CallContext& ctx) const {
  if (index_ < inv_->size) return inv_->stages[index_]->Execute(ctx, Next(*inv_, index_ + 1));
  ++inv_->calls;
  if (inv_->listener != nullptr) return pipeline_internal::CallListened(*inv_, ctx);
  inv_->has_now = inv_->has_coarse = false;
  return inv_->call(ctx);
}

}  // namespace stormguard
