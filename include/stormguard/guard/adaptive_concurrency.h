// stormguard/guard/adaptive_concurrency.h: a concurrency limit that sizes
// itself from measured latency (Netflix concurrency-limits; Envoy's adaptive
// concurrency filter applies the same idea with a periodic min-RTT window).
//
// Little's law says a server keeps up while in-flight requests stay near
// throughput x service time; beyond that, requests queue and latency rises.
// The limiter admits a request only while fewer than `limit` are in flight,
// and a LimitAlgorithm (limit_algorithm.h: AIMD or Gradient) moves `limit`
// after each request from its round-trip time and whether it was dropped.
//
//   auto limiter = AdaptiveLimiter::Create({.algorithm = LimitKind::kGradient});
//   Result<AdaptiveLimiter::Token> token = (*limiter)->TryAcquire(clock.Now());
//   if (!token.ok()) return token.status();
//   // RESOURCE_EXHAUSTED "adaptive concurrency limit reached: 20/20 in flight"
//   Status s = call();
//   if (s.ok()) token->OnSuccess(clock.Now());        // a latency sample
//   else if (overloaded_or_timed_out) token->OnDropped(clock.Now());
//   else token->OnIgnore();                            // says nothing about load
//
// A Token dropped without a verdict counts as OnIgnore. Limit changes are
// reported as kStateChanged events with reason "limit_increased" or
// "limit_decreased" (limit() tells the new value).
//
// Thread safety: every method is thread-safe. TryAcquire is one atomic
// compare of in-flight against the limit (no lock); a verdict with a sample
// takes a mutex to run the algorithm.
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"
#include "stormguard/guard/limit_algorithm.h"

namespace stormguard {

enum class LimitKind { kAimd, kGradient };

struct AdaptiveLimiterOptions {
  LimitKind algorithm = LimitKind::kGradient;
  AimdLimitOptions aimd{};          // used when algorithm == kAimd
  GradientLimitOptions gradient{};  // used when algorithm == kGradient
  Listener* listener = nullptr;     // kRejected, kStateChanged; may be null

  // Checks the options of the chosen algorithm only.
  std::vector<std::string> Validate() const;
};

class AdaptiveLimiter {
 public:
  static constexpr std::string_view kPolicy = "adaptive_concurrency";

  // One admitted request. Movable; exactly one verdict counts.
  class Token {
   public:
    Token() noexcept = default;
    Token(Token&& other) noexcept
        : owner_(std::exchange(other.owner_, nullptr)), start_(other.start_), inflight_(other.inflight_) {}
    Token& operator=(Token&& other) noexcept;
    Token(const Token&) = delete;
    Token& operator=(const Token&) = delete;
    ~Token() { OnIgnore(); }

    bool valid() const noexcept { return owner_ != nullptr; }

    // Finished normally: rtt = now - the time of TryAcquire.
    void OnSuccess(TimePoint now);
    // Timed out or refused as overloaded: the algorithm backs off.
    void OnDropped(TimePoint now);
    // Finished in a way that says nothing about load (a 404, a cancel).
    void OnIgnore() noexcept;

   private:
    friend class AdaptiveLimiter;
    Token(AdaptiveLimiter* owner, TimePoint start, int inflight) noexcept
        : owner_(owner), start_(start), inflight_(inflight) {}
    void Finish(TimePoint now, bool dropped);

    AdaptiveLimiter* owner_ = nullptr;
    TimePoint start_{};
    int inflight_ = 0;  // in flight when admitted, this one included
  };

  // Validates; INVALID_ARGUMENT names every bad field. Shared: one limiter
  // guards a destination for every pipeline and thread that calls it.
  static Result<std::shared_ptr<AdaptiveLimiter>> Create(const AdaptiveLimiterOptions& options);
  // With an algorithm of the caller's own (INVALID_ARGUMENT when null). Its
  // limits are used as they come, raised to 1 so the limiter never locks
  // itself out: a limit of 0 would admit no request and get no sample. A
  // template, so that Create({}) means the options (a braced list deduces
  // no algorithm type).
  template <std::derived_from<LimitAlgorithm> A>
  static Result<std::shared_ptr<AdaptiveLimiter>> Create(std::unique_ptr<A> algorithm, Listener* listener = nullptr) {
    return CreateWith(std::move(algorithm), listener);
  }

  AdaptiveLimiter(const AdaptiveLimiter&) = delete;
  AdaptiveLimiter& operator=(const AdaptiveLimiter&) = delete;

  // Admits the request if fewer than limit() are in flight.
  Result<Token> TryAcquire(TimePoint now);

  int limit() const noexcept { return limit_.load(std::memory_order_relaxed); }
  int inflight() const noexcept { return inflight_.load(std::memory_order_relaxed); }
  std::int64_t rejected() const noexcept { return rejected_.load(std::memory_order_relaxed); }
  std::string_view algorithm_name() const noexcept { return algorithm_->name(); }

 private:
  static Result<std::shared_ptr<AdaptiveLimiter>> CreateWith(std::unique_ptr<LimitAlgorithm> algorithm,
                                                             Listener* listener);
  AdaptiveLimiter(std::unique_ptr<LimitAlgorithm> algorithm, Listener* listener) noexcept
      : algorithm_(std::move(algorithm)), listener_(listener), limit_(std::max(1, algorithm_->limit())) {}

  void Sample(TimePoint now, Duration rtt, int inflight, bool dropped);

  std::unique_ptr<LimitAlgorithm> algorithm_;  // guarded by mu_
  Listener* listener_;
  std::mutex mu_;
  std::atomic<int> limit_;
  std::atomic<int> inflight_{0};
  std::atomic<std::int64_t> rejected_{0};
};

}  // namespace stormguard
