// stormguard/pipeline/async_frame.h: the typed per-call frame of Pipeline::ExecuteAsync,
// and the completion handle an attempt reports through.
//
// The attempt is started with a Completion<R> (R = Status or Result<T>) and
// reports exactly once, from any thread, by calling it:
//
//   pipeline->ExecuteAsync<Result<Stock>>(ctx,
//       [&](CallContext& c, Completion<Result<Stock>> done) { rpc.Start(c, std::move(done)); },
//       [](Result<Stock> r) { Reply(std::move(r)); });
//
// A handle destroyed without reporting reports INTERNAL (a forgotten
// completion must not leave the call hanging). An attempt that throws
// while starting reports the exception's status, unless it already
// reported; an attempt that reported must not throw afterwards (the call
// may be gone by then).
//
// The frame (engine, the call's callables, the value slot and every
// stage's state) is one block, released before `done` is called and freed
// once no attempt is still being started from it and no branch of it (a
// hedged attempt, async_branch.h) is left. Frames and branches take their
// blocks from a per-thread cache (core/internal/block_cache.h), so a warm
// thread's calls allocate none.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "stormguard/core/internal/block_cache.h"
#include "stormguard/core/internal/call_helpers.h"
#include "stormguard/pipeline/async_branch.h"
#include "stormguard/pipeline/async_stage.h"

namespace stormguard {

namespace pipeline_internal {

struct NoFallback {};  // the call site gave no fallback

// Where a Result<T> call's value waits; a Status call has none.
template <class R>
struct ValueSlot {
  using type = std::optional<typename R::value_type>;
};
template <>
struct ValueSlot<Status> {
  struct type {};
};

template <class R>
using SlotOf = typename ValueSlot<R>::type;

// Stores a successful value in `slot`, then ends the attempt of `call`.
template <class R>
void Report(AsyncCall& call, SlotOf<R>& slot, R r) {
  if constexpr (std::is_same_v<R, Status>) {
    call.AttemptEnded(std::move(r));
  } else {
    if (!r.ok()) return call.AttemptEnded(std::move(r).status());
    slot.emplace(std::move(r).value());
    call.AttemptEnded(Status::Ok());
  }
}

}  // namespace pipeline_internal

template <class R>
class Completion {
 public:
  Completion(AsyncCall& call, pipeline_internal::SlotOf<R>& slot) noexcept
      : call_(&call), slot_(&slot), unwinding_(std::uncaught_exceptions()) {}
  Completion(Completion&& o) noexcept
      : call_(std::exchange(o.call_, nullptr)), slot_(o.slot_), unwinding_(o.unwinding_) {}
  Completion& operator=(Completion&&) = delete;
  ~Completion() {
    // During an exception the frame reports the exception itself.
    if (call_ != nullptr && std::uncaught_exceptions() == unwinding_) {
      pipeline_internal::Report<R>(
          *std::exchange(call_, nullptr), *slot_,
          R(Status::Internal("pipeline: the attempt dropped its completion handle without reporting")));
    }
  }

  // Reports the attempt's outcome; the handle is empty afterwards.
  void operator()(R result) {
    if (call_ != nullptr) pipeline_internal::Report<R>(*std::exchange(call_, nullptr), *slot_, std::move(result));
  }

 private:
  AsyncCall* call_;
  pipeline_internal::SlotOf<R>* slot_;  // the value slot of the call, or of its branch
  int unwinding_;
};

namespace pipeline_internal {

template <class R>
class AsyncBranchFrame;

// The part of a frame that knows the result type: where the value waits,
// and how the call's callables run for the call itself or for a branch.
template <class R>
class AsyncResultCall : public AsyncCall {
 protected:
  using AsyncCall::AsyncCall;
  template <class>
  friend class AsyncBranchFrame;

  virtual void StartAttempt(CallContext& ctx, Completion<R> done) = 0;
  virtual Status RunFallback(const Status& why, SlotOf<R>& into) = 0;
  void RunAttempt() override { StartAttempt(this->call_ctx(), Completion<R>(*this, slot_)); }
  Status CallFallback(const Status& why) override { return RunFallback(why, slot_); }
  AsyncBranch& MakeBranch(std::size_t first, AsyncBranchOwner& owner) override {
    return AsyncBranchFrame<R>::Make(*this, *this, first, owner);
  }

  SlotOf<R> slot_;
};

// One branch of a call (async_branch.h): the call's callables, its own slot.
template <class R>
class AsyncBranchFrame final : public AsyncBranch {
 public:
  static AsyncBranch& Make(AsyncResultCall<R>& root, AsyncCall& parent, std::size_t first, AsyncBranchOwner& owner) {
    const std::size_t head =
        (sizeof(AsyncBranchFrame) + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
    const std::size_t bytes = head + StateBytes(parent, first);
    void* memory = core_internal::AllocateBlock(bytes);
    auto* states = static_cast<unsigned char*>(memory) + head;
    return *new (memory) AsyncBranchFrame(root, parent, first, owner, states, bytes);
  }

  void AdoptValue() noexcept override {
    if constexpr (!std::is_same_v<R, Status>) root_.slot_ = std::move(slot_);
  }

 private:
  AsyncBranchFrame(AsyncResultCall<R>& root, AsyncCall& parent, std::size_t first, AsyncBranchOwner& owner,
                   void* states, std::size_t bytes)
      : AsyncBranch(parent, first, owner, states, StateBase(parent, first)), root_(root), bytes_(bytes) {}

  void RunAttempt() override { root_.StartAttempt(ctx(), Completion<R>(*this, slot_)); }
  bool HasFallback() const noexcept override { return root_.HasFallback(); }
  Status CallFallback(const Status& why) override { return root_.RunFallback(why, slot_); }
  AsyncBranch& MakeBranch(std::size_t first, AsyncBranchOwner& owner) override {
    return Make(root_, *this, first, owner);
  }
  void Free() noexcept override {
    AsyncCall& up = parent();
    const std::size_t bytes = bytes_;
    this->DestroyStates();
    this->~AsyncBranchFrame();
    core_internal::FreeBlock(this, bytes);
    ReleaseParent(up);
  }

  AsyncResultCall<R>& root_;
  SlotOf<R> slot_;
  std::size_t bytes_;  // of its block
};

template <class R, class A, class D, class G>
class AsyncFrame final : public AsyncResultCall<R> {
 public:
  // Allocates the frame with room for every stage's state, and starts it.
  static void Launch(std::shared_ptr<const AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers, A attempt, D done,
                     std::optional<G> fallback) {
    void* memory = core_internal::AllocateBlock(Head() + plan->state_bytes);
    auto* states = static_cast<unsigned char*>(memory) + Head();
    auto* frame = new (memory)
        AsyncFrame(std::move(plan), ctx, timers, states, std::move(attempt), std::move(done), std::move(fallback));
    frame->Begin();
  }

 private:
  // The frame's own bytes, rounded up so that the states after it are
  // aligned. Its block's size is recomputed from the plan rather than kept:
  // a waiting call holds the frame, and a word less can mean a smaller
  // block class (block_cache.h).
  static constexpr std::size_t Head() noexcept {
    return (sizeof(AsyncFrame) + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
  }

  AsyncFrame(std::shared_ptr<const AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers, void* states, A attempt,
             D done, std::optional<G> fallback)
      : AsyncResultCall<R>(std::move(plan), ctx, timers, states),
        attempt_(std::move(attempt)),
        done_(std::move(done)),
        fallback_(std::move(fallback)) {}

  void StartAttempt(CallContext& ctx, Completion<R> done) override { attempt_(ctx, std::move(done)); }
  bool HasFallback() const noexcept override { return fallback_.has_value(); }
  Status RunFallback(const Status& why, SlotOf<R>& into) override {
    if constexpr (std::is_same_v<G, NoFallback>) {
      return why;
    } else {
      return StoreFallback(core_internal::InvokeCaught<R>(*fallback_, why), into);
    }
  }
  static Status StoreFallback(R r, SlotOf<R>& into) {
    if constexpr (std::is_same_v<R, Status>) {
      return r;
    } else {
      if (!r.ok()) return std::move(r).status();
      into.emplace(std::move(r).value());
      return Status::Ok();
    }
  }
  void Done(Status status) override {
    R result = Result(std::move(status));
    D done = std::move(done_);
    this->Release();
    done(std::move(result));
  }
  void Free() noexcept override {
    const std::size_t bytes = Head() + this->state_bytes();  // while the frame still holds the plan
    this->DestroyStates();
    this->~AsyncFrame();
    core_internal::FreeBlock(this, bytes);
  }
  R Result(Status status) {
    if constexpr (std::is_same_v<R, Status>) {
      return status;
    } else {
      if (!status.ok()) return R(std::move(status));
      if (!this->slot_) return R(Status::Internal("pipeline: a stage reported success without running the call"));
      return R(std::move(*this->slot_));
    }
  }

  A attempt_;
  D done_;
  std::optional<G> fallback_;
};

}  // namespace pipeline_internal
}  // namespace stormguard
