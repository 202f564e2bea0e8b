#include "thread_index.h"

#include <mutex>
#include <vector>

namespace stormguard::config::config_internal {
namespace {

struct Numbers {
  std::mutex mu;
  std::vector<bool> taken;
};

// Never destroyed: threads give their numbers back at exit, which may come
// after static destruction has begun.
Numbers& TheNumbers() {
  static Numbers* numbers = new Numbers;
  return *numbers;
}

// Gives the thread's number back when the thread exits.
struct Release {
  int index;
  ~Release() {
    Numbers& n = TheNumbers();
    std::lock_guard<std::mutex> lock(n.mu);
    n.taken[static_cast<std::size_t>(index)] = false;
    t_thread_index = -1;  // a Get during the rest of this thread's exit shares the common path
  }
};

}  // namespace

constinit thread_local int t_thread_index = kUnclaimedThreadIndex;

int ClaimThreadIndex(int limit) noexcept {
  Numbers& n = TheNumbers();
  std::lock_guard<std::mutex> lock(n.mu);
  n.taken.resize(static_cast<std::size_t>(limit));
  for (int i = 0; i < limit; ++i) {
    if (!n.taken[static_cast<std::size_t>(i)]) {
      n.taken[static_cast<std::size_t>(i)] = true;
      thread_local Release release{i};
      t_thread_index = i;
      return i;
    }
  }
  t_thread_index = -1;
  return -1;
}

}  // namespace stormguard::config::config_internal
