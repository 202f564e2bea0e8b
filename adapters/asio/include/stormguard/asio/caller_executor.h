// stormguard/asio/caller_executor.h (internal): the executor of a
// coroutine awaiting a pipeline call, as the coroutine driver keeps it.
// Not part of the public API.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/io_context.hpp>
#include <optional>

namespace stormguard::asio_internal {

// The awaiting coroutine's executor in 24 bytes rather than an
// any_io_executor's 56, as a waiting call holds it: an io_context's (the
// usual one) in place, any other (a strand, a tracked executor) on the heap.
class CallerExecutor {
 public:
  CallerExecutor() noexcept = default;
  CallerExecutor(const CallerExecutor&) = delete;
  CallerExecutor& operator=(const CallerExecutor&) = delete;
  ~CallerExecutor() { delete other_; }

  // Once, when the call starts, before any other thread can see it.
  void Set(const asio::any_io_executor& ex) {
    if (const auto* io = ex.target<asio::io_context::executor_type>()) {
      io_ = *io;
    } else {
      other_ = new asio::any_io_executor(ex);
    }
  }

  asio::any_io_executor get() const { return other_ == nullptr ? asio::any_io_executor(*io_) : *other_; }
  // False off an io_context's executor: an attempt started there is dispatched.
  bool RunningInThisThread() const noexcept { return other_ == nullptr && io_->running_in_this_thread(); }

 private:
  std::optional<asio::io_context::executor_type> io_;
  asio::any_io_executor* other_ = nullptr;
};

}  // namespace stormguard::asio_internal
