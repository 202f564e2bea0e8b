// stormguard/pipeline/async_stage.h: a stage's asynchronous form, and the per-call frame it runs in.
//
// The blocking Stage::Execute holds its thread until the rest of the
// pipeline returns. The asynchronous form is the same decisions in
// continuation-passing style, so a waiting call holds memory, not a thread:
//
//   Start(step)          the stage is entered: decide, then either
//                        step.RunInner() (the rest of the pipeline: the next
//                        stage, or the attempt) or step.Finish(status);
//   Resume(step, inner)  the rest ended with `inner`: look at it, then
//                        RunInner() again (a retry), Finish(), or wait.
//
// Waits go through the driver's AsyncTimers (async_timers.h), usually with
// an AsyncWait (async_wait.h). RunInner, Finish and the start of a wait are
// tail calls: the call may complete (and its frame be freed) inside them,
// so a stage touches nothing of the call afterwards.
//
// Per-call state: a stage that needs some (a retry session, a bulkhead
// permit) declares its type with AsyncStateLayout::Of<S>(); the pipeline
// lays every stage's state out in the one frame allocated per call, builds
// each state when the call starts and destroys it when the call ends.
// step.state<S>() is that stage's state in the current call.
//
// Branches: a stage that runs the rest of the pipeline several times at
// once (the hedge) starts each run as an AsyncBranch (async_branch.h) with
// step.Branch(): a sub-call with its own state block for the stages after
// it, its own copy of the context and its own stop, reporting back to the
// stage instead of leaving it. A pipeline without such a stage never makes
// one.
//
// A stage offers its asynchronous form through Stage::async(); one that
// returns null (the default, so a custom stage written only for the
// blocking driver) makes Pipeline::ExecuteAsync refuse the whole pipeline
// with FAILED_PRECONDITION naming the stage, before anything runs.
//
// Thread safety: Start and Resume are const and run for many calls at once;
// within one call (or one branch of it), the stages run one event at a
// time, on whichever thread delivered the event (the attempt's completion,
// a timer, a stop). Branches of one call run concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/core/classifier.h"
#include "stormguard/core/events.h"
#include "stormguard/core/status.h"
#include "stormguard/pipeline/async_timers.h"

namespace stormguard {

class AsyncBranch;
class AsyncBranchOwner;
class AsyncCall;
class Stage;

// How a stage's per-call state is built and destroyed inside the frame.
// Built as S(): a state without a user-provided default constructor is
// zero-filled whole first, on every call. The built-in states on the hot
// path declare `S() noexcept {}` and give every member an initializer.
struct AsyncStateLayout {
  std::size_t size = 0;
  std::size_t align = 1;
  void (*construct)(void*) noexcept = nullptr;
  void (*destroy)(void*) noexcept = nullptr;

  template <class S>
  static constexpr AsyncStateLayout Of() noexcept {
    static_assert(alignof(S) <= alignof(std::max_align_t), "the frame is max_align_t aligned");
    return {sizeof(S), alignof(S), [](void* p) noexcept { new (p) S(); },
            [](void* p) noexcept { static_cast<S*>(p)->~S(); }};
  }
};

// One stage of one asynchronous call, as that stage sees it. Two words.
class AsyncStep {
 public:
  AsyncStep() noexcept = default;  // empty, for a stage's per-call state
  AsyncStep(AsyncCall& call, std::size_t index) noexcept : call_(&call), index_(index) {}

  CallContext& ctx() const noexcept;
  Clock& clock() const noexcept;
  // The time by Next::Now's and Next::CheapNow's rule (stage.h), so that a
  // stage reads the same time under every driver: the stages on a call's
  // way in share one reading (internal/async_now.h); on the way out of an
  // attempt they share the pipeline's reading after it, when it took one
  // (for a listener), else the first reading one of them takes.
  TimePoint Now() const noexcept;
  TimePoint CheapNow() const noexcept;
  AsyncTimers& timers() const noexcept;
  template <class S>
  S& state() const noexcept {
    return *static_cast<S*>(RawState());
  }
  // Times the attempt has been started in this call (as Next::calls()).
  std::uint32_t calls() const noexcept;
  // Counts attempts that ran in branches (as Next::AddCalls).
  void AddCalls(std::uint32_t n) const noexcept;
  // A new, not yet started branch running the stages after this one
  // (async_branch.h); it reports to `owner`.
  AsyncBranch& Branch(AsyncBranchOwner& owner) const;
  bool has_fallback() const noexcept;
  Status Fallback(const Status& why) const;

  void RunInner() const;             // tail call
  void Finish(Status status) const;  // tail call

  // Keeps the call's frame (every stage's state) alive until destroyed,
  // for a stage that looks at its state after RunInner returns, when the
  // call may have ended meanwhile, on this thread or another.
  class Hold {
   public:
    explicit Hold(AsyncCall& call) noexcept;
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold();

   private:
    AsyncCall& call_;
  };
  Hold HoldCall() const noexcept { return Hold(*call_); }

 private:
  void* RawState() const noexcept;
  AsyncCall* call_ = nullptr;
  std::size_t index_ = 0;
};

class AsyncStage {
 public:
  virtual ~AsyncStage() = default;
  virtual AsyncStateLayout async_state() const noexcept { return {}; }
  virtual void Start(AsyncStep step) const = 0;
  virtual void Resume(AsyncStep step, Status inner) const = 0;
};

namespace pipeline_internal {

// What a built pipeline's asynchronous form needs, shared by its calls (a
// call in flight keeps it, and so its stages, alive).
struct AsyncPlan {
  std::vector<std::shared_ptr<const Stage>> keep;  // owns what `stages` points into
  std::vector<const AsyncStage*> stages;
  std::vector<AsyncStateLayout> layouts;
  std::vector<std::size_t> offsets;  // of each stage's state in the frame's state block
  std::size_t state_bytes = 0;
  Status unsupported;                   // OK, or why this pipeline cannot run asynchronously
  std::shared_ptr<AsyncTimers> timers;  // the completion driver's
  Clock* clock = nullptr;
  Listener* listener = nullptr;
  SuccessTally* tally = nullptr;  // the listener's
  const Classifier* classifier = nullptr;
  bool report_attempt_start = true;
  bool report_attempt_end = true;
  AttemptTiming attempt_timing = AttemptTiming::kEvery;  // the listener's
};

}  // namespace pipeline_internal

// The per-call frame: the engine that moves a call through the stages.
// Pipeline::ExecuteAsync makes a typed one (async_frame.h); stages see it
// only through AsyncStep.
class AsyncCall {
 public:
  AsyncCall(const AsyncCall&) = delete;
  AsyncCall& operator=(const AsyncCall&) = delete;

  // The attempt reported `status` (its value, if any, is already stored).
  // Ignored when the attempt has already been reported.
  void AttemptEnded(Status status);

 protected:
  // `states` holds the states of stages [first, end), laid out as in the
  // plan from offset `base` on (a branch's block holds only its own).
  AsyncCall(std::shared_ptr<const pipeline_internal::AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers,
            void* states, std::size_t first = 0, std::size_t base = 0, AsyncBranchOwner* owner = nullptr) noexcept;
  virtual ~AsyncCall();

  void Begin() { Enter(first_); }
  virtual void RunAttempt() = 0;  // hands the attempt a completion handle
  virtual Status CallFallback(const Status& why) = 0;
  virtual bool HasFallback() const noexcept = 0;
  // Answers the call: takes what it needs from the frame, Release()s it, then
  // calls the caller's `done`.
  virtual void Done(Status status) = 0;
  virtual void Free() noexcept = 0;  // destroys and deallocates the frame
  // Allocates a branch of this call for the stages from `first` on.
  virtual AsyncBranch& MakeBranch(std::size_t first, AsyncBranchOwner& owner) = 0;
  // The frame lives while the call runs and while an attempt is being
  // started (its callable is in the frame, and the call may end on another
  // thread before the callable returns); the last release frees it.
  void Release() noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Free();
  }
  void Retain() noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }

  CallContext& call_ctx() const noexcept { return ctx_; }
  std::size_t state_bytes() const noexcept { return plan_->state_bytes; }  // of the whole plan
  void DestroyStates() noexcept;

 private:
  friend class AsyncStep;
  friend class AsyncStep::Hold;
  friend class AsyncBranch;
  void Enter(std::size_t index);
  void Leave(std::size_t index, Status status);

  std::shared_ptr<const pipeline_internal::AsyncPlan> plan_;
  CallContext& ctx_;
  AsyncTimers& timers_;
  unsigned char* states_;
  std::size_t first_;
  std::size_t base_;
  AsyncBranchOwner* owner_;  // a branch's; null for the call itself
  std::uint32_t calls_ = 0;
  TimePoint attempt_start_{};
  std::atomic<bool> attempt_open_{false};
  std::atomic<int> refs_{1};
};

inline CallContext& AsyncStep::ctx() const noexcept { return call_->ctx_; }
inline Clock& AsyncStep::clock() const noexcept { return *call_->plan_->clock; }
inline AsyncTimers& AsyncStep::timers() const noexcept { return call_->timers_; }
inline std::uint32_t AsyncStep::calls() const noexcept { return call_->calls_; }
inline void AsyncStep::AddCalls(std::uint32_t n) const noexcept { call_->calls_ += n; }
inline AsyncBranch& AsyncStep::Branch(AsyncBranchOwner& owner) const { return call_->MakeBranch(index_ + 1, owner); }
inline bool AsyncStep::has_fallback() const noexcept { return call_->HasFallback(); }
inline Status AsyncStep::Fallback(const Status& why) const { return call_->CallFallback(why); }
inline void AsyncStep::RunInner() const { call_->Enter(index_ + 1); }
inline void AsyncStep::Finish(Status status) const { call_->Leave(index_, std::move(status)); }
inline AsyncStep::Hold::Hold(AsyncCall& call) noexcept : call_(call) { call_.Retain(); }
inline AsyncStep::Hold::~Hold() { call_.Release(); }
inline void* AsyncStep::RawState() const noexcept {
  return call_->states_ + (call_->plan_->offsets[index_] - call_->base_);
}

}  // namespace stormguard
