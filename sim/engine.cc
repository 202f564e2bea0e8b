#include "stormguard/sim/engine.h"

#include <utility>

namespace stormguard::sim {
namespace {

constexpr std::size_t kArity = 4;  // shallower than binary: fewer cache misses per pop

bool Before(const SimEvent& x, const SimEvent& y) noexcept { return x.at < y.at || (x.at == y.at && x.seq < y.seq); }

}  // namespace

Engine::Engine(std::uint64_t seed, TimePoint start) : start_(start), now_(start), clock_(start), rng_(seed) {}

void Engine::At(TimePoint at, Actor* actor, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  Push(Make(at, actor, kind, a, b));
}

void Engine::Push(const SimEvent& e) {
  heap_.push_back(e);
  SiftUp(heap_.size() - 1);
}

Engine::Lane Engine::NewLane() {
  lanes_.emplace_back();
  return static_cast<Lane>(lanes_.size() - 1);
}

void Engine::AtInLane(Lane lane, TimePoint at, Actor* actor, std::uint32_t kind, std::uint32_t a, std::uint64_t b) {
  const SimEvent e = Make(at, actor, kind, a, b);
  std::deque<SimEvent>& q = lanes_[lane];
  if (q.empty() || !(e.at < q.back().at)) {
    q.push_back(e);  // later sequence, no earlier time: the lane stays sorted
  } else {
    Push(e);
  }
}

std::size_t Engine::pending() const noexcept {
  std::size_t n = heap_.size();
  for (const auto& q : lanes_) n += q.size();
  return n;
}

int Engine::NextLane() const noexcept {
  int best = -1;
  const SimEvent* first = heap_.empty() ? nullptr : &heap_.front();
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    if (lanes_[i].empty()) continue;
    if (first == nullptr || Before(lanes_[i].front(), *first)) {
      first = &lanes_[i].front();
      best = static_cast<int>(i);
    }
  }
  return best;
}

void Engine::SiftUp(std::size_t i) noexcept {
  SimEvent e = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Engine::SiftDown(std::size_t i) noexcept {
  const std::size_t n = heap_.size();
  SimEvent e = heap_[i];
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = first + kArity < n ? first + kArity : n;
    for (std::size_t c = first + 1; c < last; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], e)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
}

void Engine::PopHeap() noexcept {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0);
}

void Engine::Run(TimePoint until) {
  for (;;) {
    const int lane = NextLane();
    if (lane < 0 && heap_.empty()) break;
    const SimEvent& next = lane < 0 ? heap_.front() : lanes_[static_cast<std::size_t>(lane)].front();
    if (next.at > until) break;
    const SimEvent e = next;
    if (lane < 0) {
      PopHeap();
    } else {
      lanes_[static_cast<std::size_t>(lane)].pop_front();
    }
    now_ = e.at;
    ++processed_;
    if (progress_ && (processed_ & 0xffff) == 0) progress_(now_);
    e.actor->OnEvent(e);
  }
}

}  // namespace stormguard::sim
