// stormguard/asio/coroutine_driver.h: co_await a pipeline from a C++20 coroutine on Asio.
//
//   Result<Stock> r = co_await pipeline.Execute(ctx, [&](CallContext& c) -> asio::awaitable<Result<Stock>> {
//     co_return co_await inventory.Get(c);
//   });
//
// The attempt returns asio::awaitable<Result<T>> (or awaitable<Status>);
// the co_await yields Result<T> (Status). A fallback, when given, returns
// Result<T> (Status) as with the blocking driver. The same pipeline runs
// its stages' asynchronous form (ExecuteAsync) on the timers of the
// awaiting coroutine's executor (TimersFor, asio_timers.h), so backoff
// waits, timeouts and bulkhead queue waits are queued on the context's one
// Asio timer, never a parked thread. The pipeline's clock must be theirs
// (Clock::Real() by default).
//
// Each attempt runs as its own coroutine thread on that executor, with its
// own cancellation slot: when the attempt's ctx.stop fires (its timeout,
// the overall timeout, the caller's stop, a hedge it lost), the slot is
// emitted (terminal) on the executor, so the operation the attempt awaits
// ends at once with operation_aborted. The thread is started directly
// (CoroutineCall::StartAttempt), not through co_spawn: co_spawn adds an
// entry coroutine, two work guards and a type-erased dispatch per attempt,
// and the caller's own co_spawn already keeps the context running. This
// uses Asio's asio::detail::awaitable_thread, as co_spawn does: it is
// written against standalone Asio 1.22 (Debian's libasio-dev) and must be
// checked again on another Asio. An attempt that throws reports its
// own error when it throws (operation_aborted as CANCELLED), never "the
// timer won". A terminal cancellation of the awaiting coroutine stops the
// call. The co_await returns once the call has ended and every attempt it
// started has finished, so the attempt callable, its captures and ctx are
// used only while the caller waits. The attempt and the fallback are
// copied into the call.
//
// A call that ends inside its start (a ready attempt that succeeds) never
// detaches the awaiting coroutine and goes through no queue: the co_await
// returns at once. An attempt started on the executor's thread runs at
// once; one started elsewhere (a bulkhead slot handed over by another
// thread) is dispatched to the executor. Only a call still running
// suspends the caller.
//
// The executor must not run two handlers at once (one io_context thread,
// or a strand). `pipeline` is a PipelineRef: the call holds the pipeline it
// started on (a live handle's, as of the Execute) until it ends.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/cancellation_state.hpp>
#include <asio/dispatch.hpp>
#include <asio/error.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stop_token>
#include <system_error>
#include <type_traits>

#include "stormguard/asio/asio_timers.h"
#include "stormguard/asio/caller_executor.h"
#include "stormguard/core/block_cache.h"
#include "stormguard/pipeline/pipeline_ref.h"

namespace stormguard {
namespace asio_internal {

// What Execute hands the call. The pipeline passes a non-callable placeholder when
// the call has no fallback: then it takes no room.
template <class F, class G>
struct DriveArgs {
  struct None {};
  using Fallback = std::conditional_t<std::is_invocable_v<G&, const Status&>, std::optional<G>, None>;

  PipelineRef pinned;
  CallContext& ctx;
  F fn;
  [[no_unique_address]] Fallback fallback;
};

// One `co_await pipeline.Execute(...)`: lives in Drive's frame until the
// call has ended and every attempt it started has finished. Its result
// waits in a block of the per-thread cache from the call's end until the
// caller takes it: a call waiting in a backoff holds no room for it.
//
// Tokens (pending_): the start, the call's end, each attempt's coroutine,
// each cancel on its way. Whoever drops the last resumes the caller; the
// start's token is dropped only once the caller's handler is stored, so an
// end on another thread meanwhile cannot be missed. A call that has ended
// when its start returns leaves only the start's token: the caller goes on
// without suspending.
template <class R, class F, class G>
class CoroutineCall {
 public:
  static constexpr bool kHasFallback = std::is_invocable_v<G&, const Status&>;
  // A coroutine thread of Asio's (what co_spawn makes): an attempt runs
  // as one; the suspended caller's is held as one and launched again to
  // resume it.
  using Thread = asio::detail::awaitable_thread<asio::any_io_executor>;

  explicit CoroutineCall(DriveArgs<F, G> args) : args_(std::move(args)) {}
  // Drive's parameter: moved into its frame before it starts, never after.
  CoroutineCall(CoroutineCall&& o) noexcept : args_(std::move(o.args_)) {}
  CoroutineCall(const CoroutineCall&) = delete;
  CoroutineCall& operator=(const CoroutineCall&) = delete;
  ~CoroutineCall();

  // Starts the call on the awaiting coroutine's executor; `caller` is its
  // cancellation slot. True when the call has already ended: take its result.
  bool Start(const asio::any_io_executor& ex, asio::cancellation_slot caller);
  // The call is still running: `caller` (the awaiting coroutine's thread,
  // detached from its executor) resumes when the call ends.
  void Suspend(Thread caller);
  // Moved from; its block goes with the call, when Drive's frame does.
  R&& TakeResult() {
    // None when the start threw: the caller gets the exception instead.
    if (result_ == nullptr) StoreResult(R(Status::Internal("the call did not start")));
    return std::move(*result_);
  }

 private:
  struct Slot;
  struct Emit {  // the attempt's stop: cancel what it awaits, on the executor
    CoroutineCall* call;
    Slot* slot;
    void operator()() const noexcept { call->EmitCancel(slot); }
  };
  struct Slot {  // one attempt in flight; the first lives in the call, more (hedging) chain off it
    asio::cancellation_signal signal;
    // Odd while an attempt holds the slot; each take and each release adds
    // one, so a cancel on its way can tell whether its attempt still does.
    // Written only on the executor; read by a stop on any thread.
    std::atomic<std::uint64_t> state{0};
    std::atomic<Slot*> next{nullptr};
  };
  struct Attempt {
    CoroutineCall* call;
    void operator()(CallContext& c, Completion<R> done) const { call->StartAttempt(c, std::move(done)); }
  };
  // An attempt's thread: its operations take their cancellation slot from
  // a cancellation state hanging off the attempt's Slot.
  using ThreadEntry = asio::awaitable<asio::detail::awaitable_thread_entry_point, asio::any_io_executor>;
  struct Launch {  // starts an attempt on the executor (dispatched there from another thread)
    CoroutineCall* call;
    CallContext* ctx;
    Completion<R> done;
    void operator()() { call->LaunchHere(*ctx, std::move(done), true); }
  };
  // An attempt's thread being launched, on the launcher's stack: most
  // attempts end inside their launch (a ready answer) and need no stop
  // callback, so one is registered only for an attempt that suspended.
  // An attempt that ends inside its launch leaves its token to the launch,
  // which may still look at the call; one launched inside Start has none
  // (Start's covers it) unless it is still running when the launch returns.
  struct Launching {
    Slot* slot;
    std::optional<std::stop_callback<Emit>>* on_stop = nullptr;  // in the attempt's frame
    Launching* outer;                                            // a launch this one runs inside
    bool ended = false;
  };
  struct Done {
    CoroutineCall* call;
    void operator()(R r) const { call->Finish(std::move(r)); }
  };
  struct Fallback {
    CoroutineCall* call;
    R operator()(const Status& why) const { return (*call->args_.fallback)(why); }
  };
  // The awaiting coroutine can be cancelled: the call runs on its own stop
  // source, stopped by that cancellation or by the caller's stop. It lives
  // in the coroutine's cancellation slot (emplaced in place, destroyed when
  // the slot is cleared), so a caller that cannot be cancelled pays nothing.
  class Linked {
   public:
    Linked(CallContext& ctx, asio::cancellation_slot slot)
        : slot_(slot), forward_(ctx.stop, ForwardStop{&own_}), saved_(std::exchange(ctx.stop, own_.get_token())) {}
    void operator()(asio::cancellation_type type) {
      if ((type & asio::cancellation_type::terminal) != asio::cancellation_type::none) own_.request_stop();
    }
    std::stop_token TakeSaved() { return std::move(saved_); }
    asio::cancellation_slot slot() const noexcept { return slot_; }

   private:
    struct ForwardStop {  // the caller's stop, to the call's own source
      std::stop_source* source;
      void operator()() const noexcept { source->request_stop(); }
    };
    asio::cancellation_slot slot_;  // where it lives: clearing it destroys it
    std::stop_source own_;
    std::stop_callback<ForwardStop> forward_;
    std::stop_token saved_;  // the caller's, while the call has its own
  };

  static ThreadEntry RunAttempt(CoroutineCall* call, Slot* slot, CallContext& c, Completion<R> done);
  void StartAttempt(CallContext& c, Completion<R> done);
  // `counted`: the attempt's token is taken already; else Start's covers the launch.
  void LaunchHere(CallContext& c, Completion<R> done, bool counted);
  Slot& TakeSlot();
  void AttemptFinished(Slot& s);
  void EmitCancel(Slot* s) noexcept;
  void Finish(R r);
  void StoreResult(R r) {
    static_assert(alignof(R) <= alignof(std::max_align_t), "a cached block is aligned for max_align_t");
    result_ = new (AllocateCachedBlock(sizeof(R))) R(std::move(r));
  }
  // One of the things the caller waits for is over, on the executor; the last one resumes it.
  void Ended() {
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) Resume();
  }
  void Unlink();
  void Resume();

  DriveArgs<F, G> args_;
  CallerExecutor ex_;
  std::optional<Thread> caller_;  // while suspended
  R* result_ = nullptr;           // once the call has ended, until taken
  std::atomic<int> pending_{2};   // the start and the call's end
  // Inside Start, on the executor: the start's token keeps the caller
  // waiting, so an attempt launched and ended there needs none of its own.
  bool starting_ = false;
  Linked* linked_ = nullptr;  // in the caller's cancellation slot
  // The innermost launch running on this thread (a member would cost every
  // waiting call 8 bytes for what lasts only while its attempt starts).
  static inline thread_local Launching* launching_ = nullptr;
  Slot first_;
};

template <class R, class F, class G>
CoroutineCall<R, F, G>::~CoroutineCall() {
  if (result_ != nullptr) {
    result_->~R();
    FreeCachedBlock(result_, sizeof(R));
  }
  for (Slot* s = first_.next.load(std::memory_order_acquire); s != nullptr;) {
    delete std::exchange(s, s->next.load(std::memory_order_acquire));
  }
}

template <class R, class F, class G>
bool CoroutineCall<R, F, G>::Start(const asio::any_io_executor& ex, asio::cancellation_slot caller) {
  ex_.Set(ex);
  const Pipeline& p = *args_.pinned.get();
  if (caller.is_connected()) {
    linked_ = &caller.template emplace<Linked>(args_.ctx, caller);
  }
  AsyncTimers& timers = TimersFor(ex);
  starting_ = true;
  struct EndOfStart {  // also when the pipeline throws
    bool& starting;
    ~EndOfStart() { starting = false; }
  } end_of_start{starting_};
  if constexpr (kHasFallback) {
    p.ExecuteAsync<R>(timers, args_.ctx, Attempt{this}, Done{this}, Fallback{this});
  } else {
    p.ExecuteAsync<R>(timers, args_.ctx, Attempt{this}, Done{this});
  }
  if (pending_.load(std::memory_order_acquire) != 1) return false;
  Unlink();
  if (linked_ != nullptr) caller.clear();
  return true;
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Suspend(Thread caller) {
  caller_.emplace(std::move(caller));
  // It ended since Start returned (on another thread): never resume the
  // caller from inside its own suspension.
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) asio::post(ex_.get(), [this] { Resume(); });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::StartAttempt(CallContext& c, Completion<R> done) {
  if (ex_.RunningInThisThread()) {
    if (starting_) return LaunchHere(c, std::move(done), false);
    pending_.fetch_add(1, std::memory_order_relaxed);  // the attempt's: the caller waits for the launch too
    return LaunchHere(c, std::move(done), true);
  }
  pending_.fetch_add(1, std::memory_order_relaxed);
  asio::dispatch(ex_.get(), Launch{this, &c, std::move(done)});
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::LaunchHere(CallContext& c, Completion<R> done, bool counted) {
  Slot& s = TakeSlot();
  const asio::cancellation_slot parent = s.signal.slot();
  Thread thread(RunAttempt(this, &s, c, std::move(done)), ex_.get(), parent, asio::cancellation_state(parent));
  Launching launch{.slot = &s, .outer = launching_};
  launching_ = &launch;
  thread.launch();  // runs the attempt until it ends or waits
  launching_ = launch.outer;
  if (launch.ended) {
    if (counted) Ended();  // the attempt's token, last: the caller may go on
    return;
  }
  if (!counted) pending_.fetch_add(1, std::memory_order_relaxed);  // it outlives the start: a token of its own
  // It waits for an operation, whose completion runs on this executor, so
  // not before this returns: from now on its stop cancels that operation
  // (a stop already requested, at once).
  launch.on_stop->emplace(c.stop, Emit{this, &s});
}

template <class R, class F, class G>
typename CoroutineCall<R, F, G>::ThreadEntry CoroutineCall<R, F, G>::RunAttempt(CoroutineCall* call, Slot* slot,
                                                                                CallContext& c, Completion<R> done) {
  {
    // Registered by the launch once the attempt waits (LaunchHere), and
    // gone, waiting out an Emit running on another thread, before the slot
    // is released.
    std::optional<std::stop_callback<Emit>> on_stop;
    call->launching_->on_stop = &on_stop;
    try {
      done(co_await call->args_.fn(c));
    } catch (const std::system_error& e) {
      if (e.code() == asio::error::operation_aborted) {
        done(R(Status::Cancelled("the attempt's operation was cancelled")));
      } else {
        done(R(StatusFromException(std::current_exception())));
      }
    } catch (...) {
      done(R(StatusFromException(std::current_exception())));
    }
  }
  call->AttemptFinished(*slot);  // the last use of `call`: it may resume the caller, who may free it
}

template <class R, class F, class G>
typename CoroutineCall<R, F, G>::Slot& CoroutineCall<R, F, G>::TakeSlot() {
  // On the executor, the one writer of the slots: plain stores, no
  // read-modify-write. The chain only grows.
  for (Slot* s = &first_;;) {
    const std::uint64_t v = s->state.load(std::memory_order_relaxed);
    if ((v & 1) == 0) {
      s->state.store(v + 1, std::memory_order_relaxed);
      return *s;
    }
    Slot* next = s->next.load(std::memory_order_relaxed);
    if (next == nullptr) {
      next = new Slot;
      next->state.store(1, std::memory_order_relaxed);
      s->next.store(next, std::memory_order_release);
      return *next;
    }
    s = next;
  }
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::AttemptFinished(Slot& s) {
  // Free the cancellation state the thread bound (a waiting call keeps no
  // memory for an attempt it no longer runs). The attempt's coroutine is
  // past its last look at it: it only returns after this.
  s.signal.slot().clear();
  s.state.store(s.state.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  if (launching_ != nullptr && launching_->slot == &s) {
    launching_->ended = true;  // its launch drops the token
    return;
  }
  Ended();
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::EmitCancel(Slot* s) noexcept {
  // The slot is still this attempt's: its on_stop, gone before the slot is released, waits this out.
  const std::uint64_t armed = s->state.load(std::memory_order_relaxed);
  pending_.fetch_add(1, std::memory_order_relaxed);
  asio::dispatch(ex_.get(), [this, s, armed] {
    if (s->state.load(std::memory_order_acquire) == armed) s->signal.emit(asio::cancellation_type::terminal);
    Ended();
  });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Finish(R r) {
  StoreResult(std::move(r));
  // The call may end on any thread (a stop requested elsewhere); the caller resumes on its executor.
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) asio::dispatch(ex_.get(), [this] { Resume(); });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Unlink() {
  if (linked_ != nullptr) args_.ctx.stop = linked_->TakeSaved();
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Resume() {
  Unlink();
  if (linked_ != nullptr) linked_->slot().clear();
  Thread caller = std::move(*caller_);
  caller_.reset();
  caller.launch();  // the caller continues from its co_await; `this` may be gone
}

template <class R, class F, class G>
asio::awaitable<R> Drive(CoroutineCall<R, F, G> call) {
  // Starts the call from this coroutine's suspension, where its executor
  // and cancellation slot are read without copies held in this frame. A
  // call still running detaches this coroutine's thread, as Asio's own
  // operations do, but without async_initiate's extra coroutine frame,
  // which a waiting call would hold the whole wait. Otherwise the thread
  // stays attached and goes on at once. A start that throws leaves its
  // exception to this frame, which throws it to the caller.
  co_await [&call](auto* frame) {
    using Thread = typename CoroutineCall<R, F, G>::Thread;
    try {
      const asio::cancellation_state caller =
          frame->await_transform(asio::this_coro::cancellation_state).await_resume();
      if (!call.Start(frame->await_transform(asio::this_coro::executor).await_resume(), caller.slot())) {
        call.Suspend(Thread(std::move(*frame->detach_thread())));
      }
    } catch (...) {
      frame->set_except(std::current_exception());
    }
    return static_cast<Thread*>(nullptr);
  };
  co_return call.TakeResult();
}

// Drive's frame comes from the per-thread block cache (core/block_cache.h)
// rather than Asio's recycling cache, which keeps two frames per thread:
// with the caller's, Drive's, the attempt's entry and the attempt's own
// frame alive at once, two of them missed it on every call (a malloc and a
// free each). Drive co_awaits no asio::awaitable itself, whose await_suspend
// would want Asio's own frame type.
template <class T, class Executor>
class CachedFrame final : public asio::detail::awaitable_frame<T, Executor> {
 public:
  static void* operator new(std::size_t size) { return AllocateCachedBlock(size); }
  static void operator delete(void* frame, std::size_t size) noexcept { FreeCachedBlock(frame, size); }
};

}  // namespace asio_internal

template <class R>
struct PipelineDriver<asio::awaitable<R>> {
  static_assert(std::is_same_v<R, Status> || IsResult<R>::value,
                "the attempt must return asio::awaitable<Status> or asio::awaitable<Result<T>>");
  template <class F, class G>
  static asio::awaitable<R> Execute(PipelineRef pinned, CallContext& ctx, F& fn, G* fallback) {
    using Args = asio_internal::DriveArgs<std::decay_t<F>, std::decay_t<G>>;
    typename Args::Fallback fb;
    if constexpr (std::is_invocable_v<G&, const Status&>) fb.emplace(*fallback);  // else: no fallback
    using Call = asio_internal::CoroutineCall<R, std::decay_t<F>, std::decay_t<G>>;
    return asio_internal::Drive(Call(Args{std::move(pinned), ctx, fn, std::move(fb)}));
  }
};

}  // namespace stormguard

// Drive's frame type (CachedFrame, above).
template <class R, class F, class G>
struct std::coroutine_traits<asio::awaitable<R, asio::any_io_executor>,
                             stormguard::asio_internal::CoroutineCall<R, F, G>> {
  using promise_type = stormguard::asio_internal::CachedFrame<R, asio::any_io_executor>;
};
