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
// stage's state) is one allocation, released before `done` is called and
// freed once no attempt is still being started from it.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "stormguard/core/internal/call_helpers.h"
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

// The part of a frame that knows the result type: where the value waits.
template <class R>
class AsyncResultCall : public AsyncCall {
 public:
  void Report(R r) {
    if constexpr (std::is_same_v<R, Status>) {
      AttemptEnded(std::move(r));
    } else {
      if (!r.ok()) return AttemptEnded(std::move(r).status());
      slot_.emplace(std::move(r).value());
      AttemptEnded(Status::Ok());
    }
  }

 protected:
  using AsyncCall::AsyncCall;
  typename ValueSlot<R>::type slot_;
};

}  // namespace pipeline_internal

template <class R>
class Completion {
 public:
  explicit Completion(pipeline_internal::AsyncResultCall<R>& call) noexcept
      : call_(&call), unwinding_(std::uncaught_exceptions()) {}
  Completion(Completion&& o) noexcept : call_(std::exchange(o.call_, nullptr)), unwinding_(o.unwinding_) {}
  Completion& operator=(Completion&&) = delete;
  ~Completion() {
    // During an exception the frame reports the exception itself.
    if (call_ != nullptr && std::uncaught_exceptions() == unwinding_) {
      std::exchange(call_, nullptr)->Report(
          R(Status::Internal("pipeline: the attempt dropped its completion handle without reporting")));
    }
  }

  // Reports the attempt's outcome; the handle is empty afterwards.
  void operator()(R result) {
    if (call_ != nullptr) std::exchange(call_, nullptr)->Report(std::move(result));
  }

 private:
  pipeline_internal::AsyncResultCall<R>* call_;
  int unwinding_;
};

namespace pipeline_internal {

template <class R, class A, class D, class G>
class AsyncFrame final : public AsyncResultCall<R> {
 public:
  // Allocates the frame with room for every stage's state, and starts it.
  static void Launch(std::shared_ptr<const AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers, A attempt,
                     D done, std::optional<G> fallback) {
    const std::size_t head = (sizeof(AsyncFrame) + alignof(std::max_align_t) - 1) &
                             ~(alignof(std::max_align_t) - 1);
    void* memory = ::operator new(head + plan->state_bytes);
    auto* states = static_cast<unsigned char*>(memory) + head;
    auto* frame = new (memory) AsyncFrame(std::move(plan), ctx, timers, states, std::move(attempt),
                                          std::move(done), std::move(fallback));
    frame->Begin();
  }

 private:
  AsyncFrame(std::shared_ptr<const AsyncPlan> plan, CallContext& ctx, AsyncTimers& timers, void* states, A attempt,
             D done, std::optional<G> fallback)
      : AsyncResultCall<R>(std::move(plan), ctx, timers, states),
        attempt_(std::move(attempt)),
        done_(std::move(done)),
        fallback_(std::move(fallback)) {}

  void RunAttempt() override { attempt_(this->call_ctx(), Completion<R>(*this)); }
  bool HasFallback() const noexcept override { return fallback_.has_value(); }
  Status CallFallback(const Status& why) override {
    if constexpr (std::is_same_v<G, NoFallback>) {
      return why;
    } else {
      return StoreFallback(core_internal::InvokeCaught<R>(*fallback_, why));
    }
  }
  Status StoreFallback(R r) {
    if constexpr (std::is_same_v<R, Status>) {
      return r;
    } else {
      if (!r.ok()) return std::move(r).status();
      this->slot_.emplace(std::move(r).value());
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
    this->DestroyStates();
    this->~AsyncFrame();
    ::operator delete(static_cast<void*>(this));
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
