#include "stormguard/config/registry.h"

#include <cstdlib>
#include <utility>

#include "last_hit.h"
#include "registry_replicas.h"
#include "registry_snapshot.h"
#include "stormguard/config/config_json.h"
#include "thread_index.h"

namespace stormguard::config {

using config_internal::Snapshot;

namespace {

std::string Joined(const std::vector<std::string>& errors) {
  std::string out = "invalid config: ";
  for (std::size_t i = 0; i < errors.size(); ++i) out += (i == 0 ? "" : "; ") + errors[i];
  return out;
}

}  // namespace

namespace config_internal {

// One thread's reference to a snapshot (or, for threads beyond the slots,
// everyone's). Handles count on it, not on the snapshot, so threads never
// write a shared counter. Aligned so that two threads' references never
// share a cache line, nor a pair of lines the hardware prefetches together.
struct alignas(128) Holder : PipelineRefCount {
  explicit Holder(std::shared_ptr<const Snapshot> s)
      : PipelineRefCount([](PipelineRefCount* c) noexcept { delete static_cast<Holder*>(c); }),
        snapshot(std::move(s)) {}
  std::shared_ptr<const Snapshot> snapshot;
};

}  // namespace config_internal

// Aligned like Holder: two threads' slots never share a prefetched pair of lines.
struct alignas(128) Registry::Slot {
  std::uint64_t generation = 0;   // of `holder`; 0: none yet
  Holder* holder = nullptr;       // retired by this slot's thread, or by ~Registry
  config_internal::LastHit last;  // of `holder`'s configuration
};

Registry::Registry(RegistryOptions options)
    : options_(std::move(options)),
      slots_(std::make_unique<Slot[]>(kThreadSlots)),
      replica_sets_(std::make_unique<config_internal::ReplicaSets>()) {
  const config_internal::BuildEnv env = Env();
  // The built-in default is valid; failing to build it is a bug to stop at.
  if (!config_internal::BuildSnapshot(Config{}, nullptr, env, current_).empty()) std::abort();
  shared_ = new Holder(current_);
  Report("built-in default", true, {});
}

// Every Get happened before this, so reading each slot's `gets` is safe;
// handles still out free their configuration when the last one goes.
Registry::~Registry() {
  for (int i = 0; i < kThreadSlots; ++i) {
    if (Holder* h = slots_[static_cast<std::size_t>(i)].holder) PipelineRefCount::Retire(h);
  }
  PipelineRefCount::Retire(shared_);
}

// The hit path: this thread has a slot (a negative index: none yet, or
// none left), the slot is current and it holds these names. The rest is out
// of line and returns in registers, so the hit path stays short.
PipelineRef Registry::Get(std::string_view destination, std::string_view method) const {
  if (const int i = config_internal::t_thread_index; i >= 0) {
    Slot& slot = slots_[static_cast<std::size_t>(i)];
    if (slot.generation == generation_.load(std::memory_order_acquire)) {
      if (const Pipeline* p = slot.last.Find(destination, method)) {
        ++slot.holder->gets;  // only this thread writes it: no atomic instruction
        return PipelineRef::Adopt(p, slot.holder);
      }
    }
  }
  const Counted got = GetAndRemember(destination, method);
  return PipelineRef::Adopt(got.first, got.second);
}

PipelineRef Registry::Resolve(std::string_view destination, std::string_view method) const {
  return Get(destination, method);
}

// Flattened: the lookup inlined makes no calls of its own.
[[gnu::noinline, gnu::flatten]] Registry::Counted Registry::GetAndRemember(std::string_view destination,
                                                                           std::string_view method) const {
  const int i = config_internal::ThreadIndex(kThreadSlots);
  if (i < 0) return GetShared(destination, method);
  Slot& slot = slots_[static_cast<std::size_t>(i)];
  if (slot.generation != generation_.load(std::memory_order_acquire)) Refresh(slot);
  Holder* h = slot.holder;
  const Pipeline* p = &h->snapshot->Find(destination, method);
  slot.last.Remember(destination, method, p);
  ++h->gets;
  return {p, h};
}

// The first Get on this thread, or the first since a reload.
[[gnu::noinline]] void Registry::Refresh(Slot& slot) const {
  // May free the old snapshot: outside the lock.
  if (Holder* old = std::exchange(slot.holder, nullptr)) PipelineRefCount::Retire(old);
  auto* fresh = new Holder(nullptr);
  std::lock_guard<std::mutex> lock(current_mu_);
  fresh->snapshot = current_;
  slot.holder = fresh;
  slot.generation = generation_.load(std::memory_order_relaxed);
}

// More threads than slots: one reference for all of them, counted atomically.
Registry::Counted Registry::GetShared(std::string_view destination, std::string_view method) const {
  Holder* h = nullptr;
  {
    std::lock_guard<std::mutex> lock(current_mu_);
    h = shared_;
    h->others.fetch_add(1, std::memory_order_relaxed);
  }
  return {&h->snapshot->Find(destination, method), h};
}

Status Registry::Apply(std::string_view text, std::string_view origin) {
  ParsedConfig parsed = ParseConfigText(text);
  if (!parsed.errors.empty()) {
    std::lock_guard<std::mutex> lock(apply_mu_);
    return Refuse(std::move(parsed.errors), origin);
  }
  return Apply(parsed.config, origin);
}

Status Registry::Apply(const Config& config, std::string_view origin) {
  std::lock_guard<std::mutex> lock(apply_mu_);
  const config_internal::BuildEnv env = Env();
  std::shared_ptr<const Snapshot> built;
  // current_ changes only here, under apply_mu_: reading it needs no other lock.
  std::vector<std::string> errors = config_internal::ReplicaSets::Check(config);
  if (errors.empty()) errors = config_internal::BuildSnapshot(config, current_.get(), env, built);
  if (!errors.empty()) return Refuse(std::move(errors), origin);
  replica_sets_->Apply(config, options_.pipeline.listener);
  config_internal::ApplyChaosSwitches(*built);  // before any call can take the new pipelines
  config_internal::ApplyBreakerForces(*built, current_.get(), options_.pipeline.clock->Now());
  Holder* retired = new Holder(built);
  {
    std::lock_guard<std::mutex> swap(current_mu_);
    current_.swap(built);
    std::swap(shared_, retired);
    generation_.fetch_add(1, std::memory_order_release);
  }
  PipelineRefCount::Retire(retired);
  accepted_.fetch_add(1, std::memory_order_relaxed);
  version_.fetch_add(1, std::memory_order_relaxed);
  Report(origin, true, {});
  return Status::Ok();  // `built` (the previous snapshot) is released here, or by its last handle
}

std::shared_ptr<ReplicaSet> Registry::Replicas(std::string_view destination) const {
  return replica_sets_->Find(destination);
}

void Registry::Reject(const Status& why, std::string_view origin) {
  std::lock_guard<std::mutex> lock(apply_mu_);
  Refuse({why.ToString()}, origin);
}

RegistryStats Registry::Stats() const noexcept {
  const std::uint64_t version = version_.load(std::memory_order_relaxed);
  return {.accepted = accepted_.load(std::memory_order_relaxed),
          .rejected = rejected_.load(std::memory_order_relaxed),
          .version = version,
          .on_defaults = version == 0};
}

Status Registry::Refuse(std::vector<std::string> errors, std::string_view origin) {
  rejected_.fetch_add(1, std::memory_order_relaxed);
  Report(origin, false, errors);
  return Status::InvalidArgument(Joined(errors));
}

void Registry::Report(std::string_view origin, bool accepted, const std::vector<std::string>& errors) {
  if (!options_.on_reload) return;
  const std::uint64_t version = version_.load(std::memory_order_relaxed);
  options_.on_reload(ReloadEvent{
      .origin = origin, .accepted = accepted, .version = version, .on_defaults = version == 0, .errors = errors});
}

config_internal::BuildEnv Registry::Env() {
  return {.pipeline = options_.pipeline,
          .executor = [this] { return HedgeExecutor(); },
          .allow_chaos = options_.allow_chaos,
          .global_limits = [this](GlobalRateLimiterOptions o) { return MakeGlobalLimit(std::move(o)); }};
}

std::shared_ptr<Executor> Registry::HedgeExecutor() {
  if (options_.hedge_executor == nullptr) {
    if (auto made = Executor::Create(); made.ok()) options_.hedge_executor = std::move(made).value();
  }
  return options_.hedge_executor;  // null: the hedge stage reports it
}

}  // namespace stormguard::config
