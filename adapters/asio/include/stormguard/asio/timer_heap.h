// stormguard/asio/timer_heap.h: the waits of AsioTimers, earliest first.
//
// A binary min-heap of node pointers ordered by (at, ticket): ties go in
// the order they were scheduled. Each node keeps its index in the heap, so
// a cancelled wait leaves it in O(log n) without a search. Not thread-safe:
// its owner's mutex guards it.
#pragma once

#include <cstddef>
#include <vector>

namespace stormguard::asio_internal {

// Node needs members `at`, `ticket` (ordering) and `index` (kept here).
template <class Node>
class TimerHeap {
 public:
  bool empty() const noexcept { return heap_.empty(); }
  Node* front() const noexcept { return heap_.front(); }

  void Push(Node* n) {
    heap_.push_back(n);
    SiftUp(n, heap_.size() - 1);
  }
  // `n` must be in the heap.
  void Remove(Node* n) noexcept {
    Node* last = heap_.back();
    heap_.pop_back();
    if (last == n) return;
    const std::size_t i = n->index;
    if (i > 0 && Before(last, heap_[(i - 1) / 2])) {
      SiftUp(last, i);
    } else {
      SiftDown(last, i);
    }
  }

 private:
  static bool Before(const Node* a, const Node* b) noexcept {
    return a->at < b->at || (a->at == b->at && a->ticket < b->ticket);
  }
  void Place(Node* n, std::size_t i) noexcept {
    heap_[i] = n;
    n->index = i;
  }
  void SiftUp(Node* n, std::size_t i) noexcept {
    while (i > 0 && Before(n, heap_[(i - 1) / 2])) {
      Place(heap_[(i - 1) / 2], i);
      i = (i - 1) / 2;
    }
    Place(n, i);
  }
  void SiftDown(Node* n, std::size_t i) noexcept {
    for (std::size_t child = 2 * i + 1; child < heap_.size(); child = 2 * i + 1) {
      if (child + 1 < heap_.size() && Before(heap_[child + 1], heap_[child])) ++child;
      if (!Before(heap_[child], n)) break;
      Place(heap_[child], i);
      i = child;
    }
    Place(n, i);
  }

  std::vector<Node*> heap_;
};

}  // namespace stormguard::asio_internal
