// stormguard/pipeline/async_branch.h: one of several concurrent runs of the rest of an asynchronous call.
//
// A stage that runs what follows it several times at once (the hedge: one
// run per hedged attempt) cannot share the call's per-call states between
// the runs. It starts each run as a branch instead:
//
//   AsyncBranch& b = step.Branch(owner);  // allocated, not started
//   b.ctx().attempt = step.ctx().attempt + i;
//   b.Start();                            // tail call
//
// A branch is a sub-call: its own block with the states of the stages after
// the owner, its own copy of the call's CallContext whose stop is a
// std::stop_source of its own, linked to the call's stop (the caller's stop
// or an enclosing timeout cancels every branch), and its own value slot.
// When its first stage finishes, it reports to its owner's BranchEnded
// instead of resuming the owner; the owner decides what the call answers,
// and moves the winner's value into the call's slot with AdoptValue().
//
// Lifetime: a branch holds a reference on the call until it has reported
// and no attempt of it is still starting, then frees itself; so the owner's
// state (in the call's frame) outlives every report, however late. The
// owner gates attempt starts (MayStartAttempt): once the call has its
// answer no branch starts an attempt, so the caller's attempt callable is
// never entered after `done`.
//
// Cost: one block per branch (the branch, its value slot and its states)
// from the thread's block cache (async_frame.h): nothing once warm; one
// allocation for its std::stop_source (the owner keeps copies of it to stop
// losers, so it is never pooled); and its context copy allocates for an
// idempotency key longer than the short-string buffer.
//
// Thread safety: a branch runs like a call (one event at a time); branches
// of one call run concurrently, so the owner locks what they share.
#pragma once

#include <optional>
#include <stop_token>

#include "stormguard/pipeline/async_stage.h"

namespace stormguard {

// What a stage that starts branches hears from them.
class AsyncBranchOwner {
 public:
  // Asked before a branch starts its attempt. False: the call has its
  // answer, and the branch ends CANCELLED without starting it. After true,
  // AttemptStartReturned() follows once the attempt's start-up returned.
  virtual bool MayStartAttempt(AsyncBranch& branch) = 0;
  virtual void AttemptStartReturned() = 0;
  // The stages of `branch` ended with `status`. The branch lives until this
  // returns.
  virtual void BranchEnded(AsyncBranch& branch, Status status) = 0;

 protected:
  ~AsyncBranchOwner() = default;
};

namespace pipeline_internal {

// Built before the AsyncCall part of a branch, which refers to its context.
struct BranchContext {
  // Forwards the call's stop to the branch, holding its own reference to
  // the source: the branch may end (and free it) inside request_stop.
  struct Forward {
    std::stop_source* target;
    void operator()() const noexcept {
      std::stop_source keep = *target;
      keep.request_stop();
    }
  };
  explicit BranchContext(const CallContext& parent);

  CallContext ctx;
  std::stop_source stop;
  std::optional<std::stop_callback<Forward>> link;
};

}  // namespace pipeline_internal

class AsyncBranch : private pipeline_internal::BranchContext, public AsyncCall {
 public:
  CallContext& ctx() noexcept { return BranchContext::ctx; }
  // The branch's stop; a copy stays usable after the branch is gone.
  const std::stop_source& stop_source() const noexcept { return stop; }
  // Enters the first stage after the owner (a tail call).
  void Start() { Begin(); }

  // The owner's bookkeeping: which of its runs this is, and since when.
  int index = 0;
  TimePoint started{};
  // The call's value slot takes this branch's value (the winner's), before
  // the call answers.
  virtual void AdoptValue() noexcept = 0;

 protected:
  AsyncBranch(AsyncCall& parent, std::size_t first, AsyncBranchOwner& owner, void* states, std::size_t base);
  ~AsyncBranch() override = default;

  AsyncCall& parent() const noexcept { return parent_; }
  static void ReleaseParent(AsyncCall& parent) noexcept { parent.Release(); }
  // Where a branch of `parent` starting at stage `first` keeps its states,
  // and how many bytes they take.
  static std::size_t StateBase(const AsyncCall& parent, std::size_t first) noexcept;
  static std::size_t StateBytes(const AsyncCall& parent, std::size_t first) noexcept;

 private:
  void Done(Status status) override;

  AsyncCall& parent_;
};

}  // namespace stormguard
