#include "stormguard/asio/asio_timers.h"

#include <asio/execution/context.hpp>
#include <asio/query.hpp>
#include <atomic>
#include <memory>

namespace stormguard {
namespace {

// Bumped whenever some context's timers change (UseTimers) or go away
// (shutdown), so a thread's cached lookup below is never stale, even for a
// new context at a destroyed one's address.
std::atomic<std::uint64_t> timers_generation{0};

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
    timers_generation.fetch_add(1, std::memory_order_release);
  }

 private:
  void shutdown() override {
    std::lock_guard lock(mu_);
    use_ = nullptr;
    own_.reset();
    timers_generation.fetch_add(1, std::memory_order_release);
  }

  std::mutex mu_;
  std::unique_ptr<AsioTimers> own_;
  AsyncTimers* use_ = nullptr;
};

// The last lookup on this thread: every coroutine call asks, and a thread
// almost always serves one context, so most calls skip the service lookup
// and its mutex.
struct LastLookup {
  const asio::execution_context* context = nullptr;
  std::uint64_t generation = 0;
  AsyncTimers* timers = nullptr;
};
thread_local LastLookup last_lookup;

}  // namespace

AsyncTimers& TimersFor(const asio::any_io_executor& executor) {
  asio::execution_context& context = asio::query(executor, asio::execution::context);
  // Read before the lookup: a change made meanwhile leaves the cache stale-marked, never wrong.
  const std::uint64_t generation = timers_generation.load(std::memory_order_acquire);
  LastLookup& last = last_lookup;
  if (last.context == &context && last.generation == generation) return *last.timers;
  AsyncTimers& timers = asio::use_service<TimersService>(context).Get(executor);
  last = {&context, generation, &timers};
  return timers;
}

void UseTimers(asio::execution_context& context, AsyncTimers& timers) {
  asio::use_service<TimersService>(context).Use(timers);
}

}  // namespace stormguard
