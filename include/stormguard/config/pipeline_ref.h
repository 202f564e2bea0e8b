// stormguard/config/pipeline_ref.h: the handle Registry::Get returns.
//
//   PipelineRef p = registry.Get("inventory", "GET /stock");
//   p->Execute(ctx, call);                       // the pipeline it got, across reloads
//   std::shared_ptr<const Pipeline> s = p;       // for an API that takes one (allocates)
//
// A PipelineRef owns a reference to the configuration its pipeline belongs
// to, like a shared_ptr, but the count it holds is split so that the common
// case costs no atomic read-modify-write: Get adds to a counter that only
// the calling thread writes, and only a release (or a copy) touches an
// atomic counter, which lives on that thread's own cache line. A handle may
// be copied, moved and released on any thread, and may outlive the registry.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard::config {

namespace config_internal {

// One reference to a configuration, shared by the handles a thread got
// between two reloads. Live handles = `gets` + `others` - kUnretired until
// the reference is retired, which folds `gets` into `others`; then the
// release that brings `others` to 0 frees it.
struct SplitCount {
  static constexpr std::int64_t kUnretired = std::int64_t{1} << 62;
  // Handles handed out by Get; written only by the owning thread, read by
  // whoever retires the reference (the owner, or the registry's destructor,
  // which every Get happens before).
  std::int64_t gets = 0;
  // kUnretired + copies - releases, until retired.
  std::atomic<std::int64_t> others{kUnretired};
};

struct PipelineRefPeer;  // tests: which reference a handle counts on

// Frees the reference (and the configuration, if it was the last).
void Free(SplitCount* count) noexcept;

// Folds `gets` in: the reference is freed when its last handle goes.
inline void Retire(SplitCount* count) noexcept {
  const std::int64_t delta = count->gets - SplitCount::kUnretired;
  if (count->others.fetch_add(delta, std::memory_order_acq_rel) + delta == 0) Free(count);
}

}  // namespace config_internal

class PipelineRef {
 public:
  PipelineRef() noexcept = default;
  PipelineRef(const PipelineRef& other) noexcept : pipeline_(other.pipeline_), count_(other.count_) {
    if (count_ != nullptr) count_->others.fetch_add(1, std::memory_order_relaxed);
  }
  PipelineRef(PipelineRef&& other) noexcept
      : pipeline_(std::exchange(other.pipeline_, nullptr)), count_(std::exchange(other.count_, nullptr)) {}
  PipelineRef& operator=(PipelineRef other) noexcept {
    std::swap(pipeline_, other.pipeline_);
    std::swap(count_, other.count_);
    return *this;
  }
  ~PipelineRef() { reset(); }

  void reset() noexcept {
    pipeline_ = nullptr;
    if (config_internal::SplitCount* c = std::exchange(count_, nullptr)) {
      if (c->others.fetch_sub(1, std::memory_order_acq_rel) == 1) config_internal::Free(c);
    }
  }

  const Pipeline* get() const noexcept { return pipeline_; }
  const Pipeline& operator*() const noexcept { return *pipeline_; }
  const Pipeline* operator->() const noexcept { return pipeline_; }
  explicit operator bool() const noexcept { return pipeline_ != nullptr; }

  // A shared_ptr that keeps a copy of this handle: for APIs that take one
  // (HttpClientOptions::pipeline). Allocates its control block.
  operator std::shared_ptr<const Pipeline>() const;  // NOLINT(google-explicit-constructor)

  // Same pipeline (not necessarily the same reference).
  friend bool operator==(const PipelineRef& a, const PipelineRef& b) noexcept { return a.get() == b.get(); }

 private:
  friend class Registry;
  friend struct config_internal::PipelineRefPeer;
  // Takes over one handle already counted on `count`.
  PipelineRef(const Pipeline* pipeline, config_internal::SplitCount* count) noexcept
      : pipeline_(pipeline), count_(count) {}

  const Pipeline* pipeline_ = nullptr;
  config_internal::SplitCount* count_ = nullptr;
};

}  // namespace stormguard::config
