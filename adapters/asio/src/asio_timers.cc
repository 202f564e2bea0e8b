#include "stormguard/asio/asio_timers.h"

#include <asio/execution/context.hpp>
#include <asio/query.hpp>
#include <memory>

namespace stormguard {
namespace {

// One per execution context: the coroutine driver's timers there. Owned
// timers go at shutdown, while the context's timer service still exists.
class TimersService final : public asio::execution_context::service {
 public:
  static inline asio::execution_context::id id;
  explicit TimersService(asio::execution_context& context) : service(context) {}

  AsyncTimers& Get(const asio::any_io_executor& executor) {
    std::lock_guard lock(mu_);
    if (use_ == nullptr) {
      own_ = std::make_unique<AsioTimers>(executor, Clock::Real());
      use_ = own_.get();
    }
    return *use_;
  }
  void Use(AsyncTimers& timers) {
    std::lock_guard lock(mu_);
    use_ = &timers;
  }

 private:
  void shutdown() override {
    std::lock_guard lock(mu_);
    use_ = nullptr;
    own_.reset();
  }

  std::mutex mu_;
  std::unique_ptr<AsioTimers> own_;
  AsyncTimers* use_ = nullptr;
};

}  // namespace

AsyncTimers& TimersFor(const asio::any_io_executor& executor) {
  asio::execution_context& context = asio::query(executor, asio::execution::context);
  return asio::use_service<TimersService>(context).Get(executor);
}

void UseTimers(asio::execution_context& context, AsyncTimers& timers) {
  asio::use_service<TimersService>(context).Use(timers);
}

}  // namespace stormguard
