// stormguard/retry/milli_tokens.h: a token count kept in integer thousandths,
// the state behind TokenBucketBudget and GrpcThrottleBudget.
//
// gRPC keeps retry tokens as integer milli-tokens so that 0.1 + 0.1 + ...
// adds up exactly; both token budgets do the same.
//
//   MilliTokens bucket(/*max=*/ToThousandths(10), /*refill=*/ToThousandths(0.1));  // starts full
//   bucket.Refill();                 // +0.1 token, never above max
//   bucket.Spend(1000);              // -1 token, never below 0
//   bool ok = bucket.TrySpend(1000); // -1 token only if one is left
//
// Thread safety: lock-free. Refilling a full bucket (the healthy steady
// state) only reads; every change is one CAS on a single cache line.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

#include "stormguard/core/striped_counter.h"

namespace stormguard {

// `amount` in thousandths: three decimals kept, the rest cut off, as gRPC's
// service-config parser cuts "0.1009" to 100. It is first rounded to
// millionths so binary fractions land where the decimal says (0.57 is
// 0.56999... as a double and still gives 570).
inline std::int64_t ToThousandths(double amount) noexcept { return std::llround(amount * 1e6) / 1000; }

class MilliTokens {
 public:
  MilliTokens(std::int64_t max, std::int64_t refill) noexcept : max_(max), refill_(refill), milli_(max) {}

  void Refill() noexcept { Add(refill_); }
  void Spend(std::int64_t milli) noexcept { Add(-milli); }
  bool TrySpend(std::int64_t milli) noexcept {
    std::int64_t old = milli_.load(std::memory_order_relaxed);
    while (old >= milli) {
      if (milli_.compare_exchange_weak(old, old - milli, std::memory_order_relaxed)) return true;
    }
    return false;
  }

  std::int64_t milli() const noexcept { return milli_.load(std::memory_order_relaxed); }
  double tokens() const noexcept { return static_cast<double>(milli()) / 1000.0; }
  std::int64_t max() const noexcept { return max_; }
  std::int64_t refill() const noexcept { return refill_; }

 private:
  // milli = clamp(milli + delta, 0, max); writes nothing at the bound.
  void Add(std::int64_t delta) noexcept {
    std::int64_t old = milli_.load(std::memory_order_relaxed);
    for (;;) {
      const std::int64_t next = std::clamp(old + delta, std::int64_t{0}, max_);
      if (next == old || milli_.compare_exchange_weak(old, next, std::memory_order_relaxed)) return;
    }
  }

  std::int64_t max_;
  std::int64_t refill_;
  alignas(kCacheLineSize) std::atomic<std::int64_t> milli_;
};

}  // namespace stormguard
