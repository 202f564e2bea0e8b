#include "stormguard/metrics/counters.h"

#include <algorithm>
#include <bit>
#include <tuple>

namespace stormguard {
namespace {

enum SlotState : std::uint32_t { kEmpty, kWriting, kReady };

std::uint64_t Hash(const Event& e) noexcept {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  h = (h ^ static_cast<std::uint64_t>(e.kind)) * 1099511628211ULL;
  h = (h ^ static_cast<std::uint64_t>(e.policy)) * 1099511628211ULL;
  const std::string_view separator("\0", 1);
  for (std::string_view s : {e.reason, separator, e.scope}) {
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  return h;
}

}  // namespace

struct CountingListener::Slot {
  std::atomic<std::uint32_t> state{kEmpty};
  EventKind kind = EventKind::kAttemptStarted;
  PolicyId policy = PolicyId::kNone;
  std::string_view reason, scope;  // written once, before state becomes kReady
  std::atomic<std::uint64_t> count{0};
  std::atomic<Duration::rep> total{0};
};

CountingListener::CountingListener(std::size_t max_keys)
    : slots_(std::make_unique<Slot[]>(std::bit_ceil(std::max<std::size_t>(2 * max_keys, 2)))),
      mask_(std::bit_ceil(std::max<std::size_t>(2 * max_keys, 2)) - 1),
      max_keys_(max_keys) {}

CountingListener::~CountingListener() = default;

CountingListener::Slot* CountingListener::Find(const Event& e) noexcept {
  std::size_t i = Hash(e) & mask_;
  for (std::size_t probes = 0; probes <= mask_; ++probes, i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    std::uint32_t st = s.state.load(std::memory_order_acquire);
    if (st == kEmpty) {
      if (used_.load(std::memory_order_relaxed) >= max_keys_) return nullptr;
      if (s.state.compare_exchange_strong(st, kWriting, std::memory_order_acquire)) {
        used_.fetch_add(1, std::memory_order_relaxed);
        s.kind = e.kind;
        s.policy = e.policy;
        s.reason = e.reason;
        s.scope = e.scope;
        s.state.store(kReady, std::memory_order_release);
        return &s;
      }
    }
    // Another thread is writing this slot's key: it takes a few stores.
    while (st == kWriting) st = s.state.load(std::memory_order_acquire);
    if (s.kind == e.kind && s.policy == e.policy && s.reason == e.reason && s.scope == e.scope) return &s;
  }
  return nullptr;
}

void CountingListener::OnEvent(const Event& e) noexcept {
  const auto k = static_cast<std::size_t>(e.kind);
  if (k < by_kind_.size()) by_kind_[k].value.fetch_add(1, std::memory_order_relaxed);
  Slot* s = Find(e);
  if (s == nullptr) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  s->count.fetch_add(1, std::memory_order_relaxed);
  if (e.duration != Duration::zero()) s->total.fetch_add(e.duration.count(), std::memory_order_relaxed);
}

CountingListener::Snapshot CountingListener::Read() const {
  Snapshot snap;
  for (std::size_t k = 0; k < by_kind_.size(); ++k) {
    snap.by_kind[k] = by_kind_[k].value.load(std::memory_order_relaxed);
  }
  for (std::size_t i = 0; i <= mask_; ++i) {
    const Slot& s = slots_[i];
    if (s.state.load(std::memory_order_acquire) != kReady) continue;
    snap.rows.push_back(Row{s.kind, s.policy, std::string(s.reason), std::string(s.scope),
                            s.count.load(std::memory_order_relaxed),
                            Duration(s.total.load(std::memory_order_relaxed))});
  }
  std::sort(snap.rows.begin(), snap.rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.kind, a.policy, a.reason, a.scope) < std::tie(b.kind, b.policy, b.reason, b.scope);
  });
  snap.dropped = dropped_.load(std::memory_order_relaxed);
  return snap;
}

std::uint64_t CountingListener::Snapshot::count(EventKind kind, PolicyId policy,
                                                std::string_view reason) const noexcept {
  std::uint64_t n = 0;
  for (const Row& r : rows) {
    if (r.kind == kind && r.policy == policy && (reason.empty() || r.reason == reason)) n += r.count;
  }
  return n;
}

Duration CountingListener::Snapshot::total(EventKind kind, PolicyId policy, std::string_view reason) const noexcept {
  Duration d = Duration::zero();
  for (const Row& r : rows) {
    if (r.kind == kind && r.policy == policy && (reason.empty() || r.reason == reason)) d += r.total;
  }
  return d;
}

CountingListener::Snapshot CountingListener::Snapshot::ForScope(std::string_view scope) const {
  Snapshot out;
  for (const Row& r : rows) {
    if (r.scope != scope) continue;
    out.rows.push_back(r);
    out.by_kind[static_cast<std::size_t>(r.kind)] += r.count;
  }
  return out;
}

}  // namespace stormguard
