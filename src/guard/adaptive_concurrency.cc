#include "stormguard/guard/adaptive_concurrency.h"

#include <algorithm>

#include "stormguard/core/validation.h"

namespace stormguard {

std::vector<std::string> AdaptiveLimiterOptions::Validate() const {
  Validator v;
  if (algorithm == LimitKind::kAimd) {
    v.Nest("aimd", aimd.Validate());
  } else {
    v.Nest("gradient", gradient.Validate());
  }
  return std::move(v).errors();
}

Result<std::shared_ptr<AdaptiveLimiter>> AdaptiveLimiter::Create(const AdaptiveLimiterOptions& options) {
  Status s = ValidationStatus("adaptive limiter options", options.Validate());
  if (!s.ok()) return s;
  std::unique_ptr<LimitAlgorithm> algorithm;
  if (options.algorithm == LimitKind::kAimd) {
    algorithm = std::make_unique<AimdLimit>(*AimdLimit::Create(options.aimd));
  } else {
    algorithm = std::make_unique<GradientLimit>(*GradientLimit::Create(options.gradient));
  }
  return CreateWith(std::move(algorithm), options.listener);
}

Result<std::shared_ptr<AdaptiveLimiter>> AdaptiveLimiter::CreateWith(std::unique_ptr<LimitAlgorithm> algorithm,
                                                                     Listener* listener) {
  if (algorithm == nullptr) return Status::InvalidArgument("adaptive limiter: algorithm is null");
  return std::shared_ptr<AdaptiveLimiter>(new AdaptiveLimiter(std::move(algorithm), listener));
}

Result<AdaptiveLimiter::Token> AdaptiveLimiter::TryAcquire(TimePoint now) {
  int cur = inflight_.load(std::memory_order_relaxed);
  do {
    const int limit = limit_.load(std::memory_order_relaxed);
    if (cur >= limit) {
      rejected_.fetch_add(1, std::memory_order_relaxed);
      Emit(listener_, {.kind = EventKind::kRejected,
                       .policy = PolicyId::kAdaptiveConcurrency,
                       .reason = "concurrency limit reached",
                       .at = now});
      return Status::ResourceExhausted("adaptive concurrency limit reached: " + std::to_string(cur) + "/" +
                                       std::to_string(limit) + " in flight")
          .WithSource(kPolicy);
    }
  } while (!inflight_.compare_exchange_weak(cur, cur + 1, std::memory_order_acq_rel, std::memory_order_relaxed));
  return Token(this, now, cur + 1);
}

void AdaptiveLimiter::Sample(TimePoint now, Duration rtt, int inflight, bool dropped) {
  std::lock_guard lock(mu_);
  const int before = limit_.load(std::memory_order_relaxed);
  const int after = std::max(1, algorithm_->OnSample(now, rtt, inflight, dropped));
  if (after == before) return;
  limit_.store(after, std::memory_order_relaxed);
  // Reported under the lock so listeners see limit changes in order.
  Emit(listener_, {.kind = EventKind::kStateChanged,
                   .policy = PolicyId::kAdaptiveConcurrency,
                   .reason = after > before ? "limit_increased" : "limit_decreased",
                   .at = now,
                   .duration = rtt});
}

AdaptiveLimiter::Token& AdaptiveLimiter::Token::operator=(Token&& other) noexcept {
  if (this != &other) {
    OnIgnore();
    owner_ = std::exchange(other.owner_, nullptr);
    start_ = other.start_;
    inflight_ = other.inflight_;
  }
  return *this;
}

void AdaptiveLimiter::Token::Finish(TimePoint now, bool dropped) {
  if (owner_ == nullptr) return;
  AdaptiveLimiter* owner = std::exchange(owner_, nullptr);
  owner->Sample(now, now - start_, inflight_, dropped);
  owner->inflight_.fetch_sub(1, std::memory_order_acq_rel);
}

void AdaptiveLimiter::Token::OnSuccess(TimePoint now) { Finish(now, false); }
void AdaptiveLimiter::Token::OnDropped(TimePoint now) { Finish(now, true); }

void AdaptiveLimiter::Token::OnIgnore() noexcept {
  if (owner_ == nullptr) return;
  std::exchange(owner_, nullptr)->inflight_.fetch_sub(1, std::memory_order_acq_rel);
}

}  // namespace stormguard
