// stormguard/asio/coroutine_driver.h: co_await a pipeline from a C++20 coroutine on Asio.
//
//   Result<Stock> r = co_await pipeline->Execute(ctx, [&](CallContext& c) -> asio::awaitable<Result<Stock>> {
//     co_return co_await inventory.Get(c);
//   });
//
// The attempt returns asio::awaitable<Result<T>> (or awaitable<Status>);
// the co_await yields Result<T> (Status). A fallback, when given, returns
// Result<T> (Status) as with the blocking driver. The same pipeline runs
// its stages' asynchronous form (ExecuteAsync) on the timers of the
// awaiting coroutine's executor (TimersFor, asio_timers.h), so backoff
// waits, timeouts and bulkhead queue waits are Asio timers, never a parked
// thread. The pipeline's clock must be theirs (Clock::Real() by default).
//
// Each attempt runs as its own coroutine on that executor, with its own
// cancellation slot: when the attempt's ctx.stop fires (its timeout, the
// overall timeout, the caller's stop, a hedge it lost), the slot is
// emitted (terminal) on the executor, so the operation the attempt awaits
// ends at once with operation_aborted. An attempt that throws reports its
// own error when it throws (operation_aborted as CANCELLED), never "the
// timer won". A terminal cancellation of the awaiting coroutine stops the
// call. The co_await returns once the call has ended and every attempt it
// started has finished, so the attempt callable, its captures and ctx are
// used only while the caller waits. The attempt and the fallback are
// copied into the call.
//
// The executor must not run two handlers at once (one io_context thread,
// or a strand); the pipeline must be alive when the co_await starts.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/dispatch.hpp>
#include <asio/error.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <system_error>
#include <type_traits>
#include <vector>

#include "stormguard/asio/asio_timers.h"
#include "stormguard/pipeline/pipeline.h"

namespace stormguard {
namespace asio_internal {

// One `co_await pipeline.Execute(...)`: lives in the driving coroutine's
// frame until every attempt it started has finished.
template <class R, class F, class G>
class CoroutineCall {
 public:
  // The pipeline passes a non-callable placeholder when the call has no fallback.
  static constexpr bool kHasFallback = std::is_invocable_v<G&, const Status&>;
  using Handler = typename asio::async_result<asio::use_awaitable_t<>, void()>::handler_type;

  CoroutineCall(CallContext& ctx, F fn, std::optional<G> fallback, asio::any_io_executor ex)
      : ctx_(ctx), fn_(std::move(fn)), fallback_(std::move(fallback)), ex_(std::move(ex)) {}

  void Start(const Pipeline& p, Handler handler);
  R TakeResult() { return std::move(*result_); }

 private:
  struct Slot;
  struct Emit {  // the attempt's stop: cancel what it awaits, on the executor
    CoroutineCall* call;
    Slot* slot;
    std::uint64_t generation;
    void operator()() const noexcept { call->EmitCancel(slot, generation); }
  };
  struct Slot {  // one attempt in flight
    asio::cancellation_signal signal;
    std::optional<std::stop_callback<Emit>> on_stop;
    std::uint64_t generation = 0;
    bool busy = false;
  };
  struct Attempt {
    CoroutineCall* call;
    void operator()(CallContext& c, Completion<R> done) const { call->StartAttempt(c, std::move(done)); }
  };
  struct AttemptEnded {  // co_spawn's completion: the attempt's coroutine has finished
    CoroutineCall* call;
    Slot* slot;
    void operator()(std::exception_ptr) const { call->AttemptFinished(*slot); }
  };
  struct Done {
    CoroutineCall* call;
    void operator()(R r) const { call->Finish(std::move(r)); }
  };
  struct Fallback {
    CoroutineCall* call;
    R operator()(const Status& why) const { return (*call->fallback_)(why); }
  };
  struct StopOnCancel {  // the awaiting coroutine was cancelled
    std::stop_source source;
    void operator()(asio::cancellation_type type) {
      if ((type & asio::cancellation_type::terminal) != asio::cancellation_type::none) source.request_stop();
    }
  };
  struct ForwardStop {  // the caller's stop, to the call's own source
    std::stop_source source;
    void operator()() noexcept { source.request_stop(); }
  };

  static asio::awaitable<void> RunAttempt(CoroutineCall* call, Slot* slot, CallContext& c, Completion<R> done);
  void StartAttempt(CallContext& c, Completion<R> done);
  Slot& TakeSlot();
  void AttemptFinished(Slot& s);
  void EmitCancel(Slot* s, std::uint64_t generation) noexcept;
  void Finish(R r);
  // One of the things the caller waits for is over; the last one resumes it.
  void Ended() {
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) Resume();
  }
  void Resume();

  CallContext& ctx_;
  F fn_;
  std::optional<G> fallback_;
  asio::any_io_executor ex_;
  std::optional<Handler> handler_;
  std::optional<R> result_;
  // The call, the start-up, each attempt's coroutine, each cancel on its way.
  std::atomic<int> pending_{2};
  std::optional<std::stop_callback<ForwardStop>> forward_;
  std::optional<std::stop_token> saved_stop_;  // the caller's, while the call has its own
  std::mutex slots_mu_;
  Slot first_;
  std::vector<std::unique_ptr<Slot>> more_;  // attempts in flight at once (hedging)
};

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Start(const Pipeline& p, Handler handler) {
  handler_.emplace(std::move(handler));
  auto slot = asio::get_associated_cancellation_slot(*handler_);
  if (slot.is_connected()) {
    std::stop_source own;
    forward_.emplace(ctx_.stop, ForwardStop{own});
    saved_stop_ = std::exchange(ctx_.stop, own.get_token());
    slot.template emplace<StopOnCancel>(StopOnCancel{std::move(own)});
  }
  AsyncTimers& timers = TimersFor(ex_);
  if constexpr (kHasFallback) {
    p.ExecuteAsync<R>(timers, ctx_, Attempt{this}, Done{this}, Fallback{this});
  } else {
    p.ExecuteAsync<R>(timers, ctx_, Attempt{this}, Done{this});
  }
  // Never resume the caller from inside its own co_await's start.
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) asio::post(ex_, [this] { Resume(); });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::StartAttempt(CallContext& c, Completion<R> done) {
  Slot& s = TakeSlot();
  pending_.fetch_add(1, std::memory_order_relaxed);
  s.on_stop.emplace(c.stop, Emit{this, &s, s.generation});
  asio::co_spawn(ex_, RunAttempt(this, &s, c, std::move(done)),
                 asio::bind_cancellation_slot(s.signal.slot(), AttemptEnded{this, &s}));
}

template <class R, class F, class G>
asio::awaitable<void> CoroutineCall<R, F, G>::RunAttempt(CoroutineCall* call, Slot* slot, CallContext& c,
                                                         Completion<R> done) {
  // A stop that came before the slot was bound: the attempt's first wait ends at once.
  if (c.stop.stop_requested()) slot->signal.emit(asio::cancellation_type::terminal);
  try {
    done(co_await call->fn_(c));
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

template <class R, class F, class G>
typename CoroutineCall<R, F, G>::Slot& CoroutineCall<R, F, G>::TakeSlot() {
  std::lock_guard lock(slots_mu_);
  Slot* s = &first_;
  for (std::size_t i = 0; s->busy; ++i) {
    if (i == more_.size()) more_.push_back(std::make_unique<Slot>());
    s = more_[i].get();
  }
  s->busy = true;
  ++s->generation;
  return *s;
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::AttemptFinished(Slot& s) {
  s.on_stop.reset();  // waits out an Emit running on another thread
  {
    std::lock_guard lock(slots_mu_);
    s.busy = false;
  }
  Ended();
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::EmitCancel(Slot* s, std::uint64_t generation) noexcept {
  pending_.fetch_add(1, std::memory_order_relaxed);
  asio::dispatch(ex_, [this, s, generation] {
    bool live;
    {
      std::lock_guard lock(slots_mu_);
      live = s->busy && s->generation == generation;
    }
    if (live) s->signal.emit(asio::cancellation_type::terminal);
    Ended();
  });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Finish(R r) {
  result_.emplace(std::move(r));
  asio::dispatch(ex_, [this] { Ended(); });
}

template <class R, class F, class G>
void CoroutineCall<R, F, G>::Resume() {
  if (saved_stop_) {
    forward_.reset();
    ctx_.stop = std::move(*saved_stop_);
    saved_stop_.reset();
  }
  Handler h = std::move(*handler_);
  handler_.reset();
  std::move(h)();  // the caller continues; `this` may be gone
}

template <class R, class F, class G>
asio::awaitable<R> Drive(const Pipeline& p, CallContext& ctx, F fn, std::optional<G> fallback) {
  CoroutineCall<R, F, G> call(ctx, std::move(fn), std::move(fallback), co_await asio::this_coro::executor);
  co_await asio::async_initiate<const asio::use_awaitable_t<>&, void()>(
      [&call, &p](auto handler) { call.Start(p, std::move(handler)); }, asio::use_awaitable);
  co_return call.TakeResult();
}

}  // namespace asio_internal

template <class R>
struct PipelineDriver<asio::awaitable<R>> {
  static_assert(std::is_same_v<R, Status> || IsResult<R>::value,
                "the attempt must return asio::awaitable<Status> or asio::awaitable<Result<T>>");
  template <class F, class G>
  static asio::awaitable<R> Execute(const Pipeline& p, CallContext& ctx, F& fn, G* fallback) {
    std::optional<std::decay_t<G>> fb;
    if constexpr (std::is_invocable_v<G&, const Status&>) fb.emplace(*fallback);  // else: no fallback
    return asio_internal::Drive<R>(p, ctx, std::decay_t<F>(fn), std::move(fb));
  }
};

}  // namespace stormguard
