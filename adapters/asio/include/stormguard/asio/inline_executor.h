// stormguard/asio/inline_executor.h: an Asio executor that runs what it is
// given at once, on the calling thread.
//
// The coroutine driver gives it to each attempt's co_spawn completion.
// Asio 1.22's co_spawn posts the completion of a coroutine that never left
// its thread: for an attempt that finished synchronously, one trip through
// the io_context queue (and one reactor run) per attempt. Running it inline
// is right there because that completion already runs on the call's
// executor, where the attempt's coroutine ends, and it only does the
// attempt's bookkeeping: release its slot, drop its token. It resumes the
// caller only as the call's last token, and never while the caller is
// starting the call (the start holds a token), so a loop of synchronous
// calls does not nest.
//
// It satisfies what Asio 1.22's post and dispatch ask of an executor:
// execute, require(blocking.never) (returning itself: the one user above
// does not need the handler deferred), query(context) and equality.
#pragma once

#include <asio/execution/blocking.hpp>
#include <asio/execution/context.hpp>
#include <asio/execution_context.hpp>
#include <utility>

namespace stormguard::asio_internal {

class InlineExecutor {
 public:
  explicit InlineExecutor(asio::execution_context& context) noexcept : context_(&context) {}

  template <class F>
  void execute(F&& f) const {
    std::forward<F>(f)();
  }
  InlineExecutor require(asio::execution::blocking_t::never_t) const noexcept { return *this; }
  asio::execution_context& query(asio::execution::context_t) const noexcept { return *context_; }

  friend bool operator==(const InlineExecutor& a, const InlineExecutor& b) noexcept {
    return a.context_ == b.context_;
  }
  friend bool operator!=(const InlineExecutor& a, const InlineExecutor& b) noexcept { return !(a == b); }

 private:
  asio::execution_context* context_;
};

}  // namespace stormguard::asio_internal
