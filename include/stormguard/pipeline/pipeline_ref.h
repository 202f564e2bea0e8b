// stormguard/pipeline/pipeline_ref.h: the one handle to a pipeline that
// every adapter, driver and user holds.
//
//   PipelineRef fixed = PipelineBuilder().AddRetry({}).Build().value();
//   PipelineRef live = registry.Follow("inventory", "GET /stock");
//   Result<Stock> r = live.Execute(ctx, [&](CallContext& c) { return inventory.Get(c); });
//   auto client = HttpClient::Create({.pipeline = live});  // follows every reload
//
// A handle is one of:
//   fixed  one pipeline: what PipelineBuilder::Build() (and so every
//          preset) returns, and what Registry::Get returns for one call;
//   live   a source and the names to look up in it (Registry::Follow):
//          each call resolves the pipeline in force when it starts, at the
//          cost of one registry hit (registry.h), and finishes on that
//          pipeline whatever reloads meanwhile; the next call takes the new
//          one;
//   empty  default-constructed; adapters refuse it.
// Execute and ExecuteAsync take the same arguments as Pipeline's. Pin()
// gives the fixed handle a call would run on: hold it to look at a live
// handle's pipeline (get() is null for a live handle, and * and -> stop the
// process).
//
// Ownership: a fixed handle owns its pipeline, like a shared_ptr, with a
// count split so that the registry's Get needs no atomic read-modify-write
// (registry.h); copies, moves and releases are safe on any thread, and the
// last one frees the pipeline (or the configuration it belongs to). A live
// handle owns its names; its source (the registry) must outlive every call
// made through it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "stormguard/pipeline/pipeline.h"

namespace stormguard {

class PipelineRef;

// Where a live handle finds its pipeline on each call (config::Registry).
class PipelineSource {
 public:
  // The pipeline in force for these names, counted for one call; never empty.
  virtual PipelineRef Resolve(std::string_view destination, std::string_view method) const = 0;

 protected:
  ~PipelineSource() = default;
};

// The owner of what fixed handles point to, shared by the handles of one
// owner; a PipelineSource derives its own (with its `free`). Handles alive =
// `gets` + `others` - kUnretired until the owner is retired, which folds
// `gets` into `others`; then the release that brings `others` to 0 frees
// it. An owner made already retired (others = 1) never uses `gets`.
struct PipelineRefCount {
  static constexpr std::int64_t kUnretired = std::int64_t{1} << 62;
  using FreeFn = void (*)(PipelineRefCount*) noexcept;

  explicit PipelineRefCount(FreeFn f, std::int64_t first = kUnretired) noexcept : others(first), free(f) {}

  // Folds `gets` in: the owner is freed when its last handle goes.
  static void Retire(PipelineRefCount* count) noexcept {
    const std::int64_t delta = count->gets - kUnretired;
    if (count->others.fetch_add(delta, std::memory_order_acq_rel) + delta == 0) count->free(count);
  }

  // Handles handed out without an atomic instruction (the registry's Get);
  // written only by the owning thread, read by whoever retires the owner
  // (that thread, or the registry's destructor, which every Get happens
  // before).
  std::int64_t gets = 0;
  // kUnretired + copies - releases, until retired.
  std::atomic<std::int64_t> others;
  FreeFn free;
};

namespace pipeline_internal {

struct LiveBinding;      // a live handle's source and names
struct PipelineRefPeer;  // tests: which owner a handle counts on

}  // namespace pipeline_internal

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

  // A live handle on `source` (a config::Registry; see Registry::Follow).
  static PipelineRef Follow(const PipelineSource& source, std::string destination, std::string method = {});

  void reset() noexcept {
    pipeline_ = nullptr;
    if (PipelineRefCount* c = std::exchange(count_, nullptr)) {
      if (c->others.fetch_sub(1, std::memory_order_acq_rel) == 1) c->free(c);
    }
  }

  bool live() const noexcept { return pipeline_ == nullptr && count_ != nullptr; }
  explicit operator bool() const noexcept { return count_ != nullptr; }
  // A fixed handle's pipeline; null for a live or empty one (Pin() it).
  const Pipeline* get() const noexcept { return pipeline_; }
  // A fixed handle's pipeline, like a shared_ptr's; on a live or empty
  // handle the process stops with a message (Pin() a live one first).
  const Pipeline& operator*() const noexcept { return *Fixed(); }
  const Pipeline* operator->() const noexcept { return Fixed(); }

  // The fixed handle the next call would run on: itself when fixed, the
  // source's pipeline in force when live, empty when empty.
  PipelineRef Pin() const { return pipeline_ != nullptr || count_ == nullptr ? *this : ResolveLive(); }

  template <class F, class... G>
  auto Execute(CallContext& ctx, F&& fn, G&&... fallback) const {
    static_assert(sizeof...(G) <= 1, "Execute(ctx, fn) or Execute(ctx, fn, fallback)");
    using R = std::invoke_result_t<F&, CallContext&>;
    if constexpr (!std::is_same_v<R, Status> && !IsResult<R>::value) {
      // Another driver's call (an asio::awaitable) may run after this
      // returns: it keeps its own handle.
      return PipelineDriver<R>::Execute(Pin(), ctx, fn, FallbackPointer(fallback...));
    } else {
      if (pipeline_ != nullptr) return pipeline_->Execute(ctx, fn, std::forward<G>(fallback)...);
      const PipelineRef pinned = ResolveLive();
      return pinned.pipeline_->Execute(ctx, fn, std::forward<G>(fallback)...);
    }
  }

  // As Pipeline::ExecuteAsync (all its forms): the call keeps what it needs
  // of its pipeline until `done`, so the handle may go away earlier.
  template <class R = Status, class... Args>
  void ExecuteAsync(Args&&... args) const {
    if (pipeline_ != nullptr) return pipeline_->ExecuteAsync<R>(std::forward<Args>(args)...);
    const PipelineRef pinned = ResolveLive();
    pinned.pipeline_->ExecuteAsync<R>(std::forward<Args>(args)...);
  }

  // Of the pipeline the next call would run on.
  std::string Describe() const;
  Status AsyncSupport() const;
  Status BlockingSupport() const;

  // Same target: the same pipeline, or the same source and names.
  friend bool operator==(const PipelineRef& a, const PipelineRef& b) noexcept;

  // For a source (or the builder): a handle on `pipeline`, taking over one
  // reference already counted on `count`.
  static PipelineRef Adopt(const Pipeline* pipeline, PipelineRefCount* count) noexcept {
    PipelineRef r;
    r.pipeline_ = pipeline;
    r.count_ = count;
    return r;
  }

 private:
  friend struct pipeline_internal::PipelineRefPeer;

  PipelineRef ResolveLive() const;
  const Pipeline* Fixed() const noexcept {
    if (pipeline_ == nullptr) [[unlikely]]
      DieNotFixed();
    return pipeline_;
  }
  [[noreturn]] static void DieNotFixed() noexcept;
  static pipeline_internal::NoFallback* FallbackPointer() noexcept { return nullptr; }
  template <class G>
  static G* FallbackPointer(G& fallback) noexcept {
    return &fallback;
  }

  const Pipeline* pipeline_ = nullptr;
  PipelineRefCount* count_ = nullptr;
};

}  // namespace stormguard
