#include "stormguard/metrics/metrics_listener.h"

#include <algorithm>
#include <bit>

#include "metric_instance.h"

namespace stormguard {

using metrics_internal::Instance;

// A name's place in the lookup table: written once under mu_, then read
// without a lock (the acquire on `instance` publishes the name with it).
struct MetricsListener::Slot {
  std::atomic<Instance*> instance{nullptr};
  std::unique_ptr<Instance> owned;
};

namespace {

std::size_t TableSize(std::size_t max_instances) { return std::bit_ceil(std::max<std::size_t>(2 * max_instances, 2)); }

std::uint64_t Hash(std::string_view s) noexcept {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

}  // namespace

MetricsListener::MetricsListener(std::size_t max_instances)
    : max_instances_(max_instances),
      mask_(TableSize(max_instances) - 1),
      slots_(std::make_unique<Slot[]>(TableSize(max_instances))),
      order_(std::make_unique<std::atomic<Instance*>[]>(max_instances)) {}

MetricsListener::~MetricsListener() = default;

Instance* MetricsListener::Find(std::string_view name) const noexcept {
  for (std::size_t i = Hash(name) & mask_;; i = (i + 1) & mask_) {
    Instance* in = slots_[i].instance.load(std::memory_order_acquire);
    if (in == nullptr) return nullptr;  // the table is never full: it has twice the cap
    if (in->name() == name) return in;
  }
}

Instance* MetricsListener::Register(std::string_view name) {
  std::lock_guard lock(mu_);
  if (Instance* in = Find(name)) return in;
  const std::size_t n = count_.load(std::memory_order_relaxed);
  if (n >= max_instances_) return nullptr;
  std::size_t i = Hash(name) & mask_;
  while (slots_[i].instance.load(std::memory_order_relaxed) != nullptr) i = (i + 1) & mask_;
  slots_[i].owned = std::make_unique<Instance>(std::string(name));
  Instance* in = slots_[i].owned.get();
  order_[n].store(in, std::memory_order_relaxed);
  slots_[i].instance.store(in, std::memory_order_release);
  count_.store(n + 1, std::memory_order_release);
  return in;
}

void MetricsListener::OnEvent(const Event& event) noexcept {
  if (event.kind == EventKind::kAttemptStarted) return;  // not wanted: no instance for it
  Instance* in = Find(event.scope);
  if (in == nullptr) {
    try {
      in = Register(event.scope);  // once per name
    } catch (...) {                // out of memory: the event is lost, and counted
    }
  }
  if (in == nullptr) return overflow_listener_.OnEvent(event);
  in->OnEvent(event);
}

Listener& MetricsListener::For(std::string_view name) {
  Instance* in = Find(name);
  if (in == nullptr) in = Register(name);
  if (in == nullptr) {
    overflow_.fetch_add(1, std::memory_order_relaxed);
    return overflow_listener_;
  }
  return *in;
}

bool MetricsListener::Watch(std::string_view name, Watched what, std::function<double()> read) {
  std::lock_guard lock(mu_);
  if (watches_.size() >= max_instances_) {
    overflow_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  watches_.push_back(WatchEntry{std::string(name), what, std::move(read)});
  return true;
}

}  // namespace stormguard
