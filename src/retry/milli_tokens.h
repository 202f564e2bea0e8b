// Token and retry amounts as integer thousandths, for the budgets that
// keep three decimals (token bucket, gRPC throttle, ratio).
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>

namespace stormguard::internal {

// `amount` in thousandths: three decimals kept, the rest cut off, as gRPC's
// service-config parser cuts "0.1009" to 100. The value is first rounded to
// millionths so binary fractions land where the decimal says (0.57 is
// 0.56999... as a double, and must still give 570).
inline std::int64_t ToMilli(double amount) noexcept {
  return std::llround(amount * 1e6) / 1000;
}

inline double FromMilli(std::int64_t milli) noexcept {
  return static_cast<double>(milli) / 1000.0;
}

// value = clamp(value + delta, lo, hi), lock-free. Writes nothing when the
// value already sits at the bound it moves towards, so a full bucket's
// successes (the healthy steady state) only read the shared cache line.
inline void ClampedAdd(std::atomic<std::int64_t>& value, std::int64_t delta, std::int64_t lo,
                       std::int64_t hi) noexcept {
  std::int64_t old = value.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t next = std::clamp(old + delta, lo, hi);
    if (next == old || value.compare_exchange_weak(old, next, std::memory_order_relaxed)) return;
  }
}

}  // namespace stormguard::internal
