// Coalesces changes into deliveries: the first change after a quiet spell
// goes out at once; changes within `interval` of a delivery wait for the
// interval's end and go out together. A burst of N writes thus costs about
// 1 + burst_length / interval reloads, never N, and an isolated write pays
// no delay.
//
// Thread safety: one thread at a time. Times come from the caller's clock.
#pragma once

#include <optional>
#include <utility>

#include "stormguard/core/time.h"

namespace stormguard::config_sources {

class DeliveryThrottle {
 public:
  explicit DeliveryThrottle(Duration interval) : interval_(interval) {}

  void Changed() noexcept { pending_ = true; }
  bool pending() const noexcept { return pending_; }

  // True when a pending change should be delivered now (and marks it done).
  bool Due(TimePoint now) noexcept {
    if (!pending_ || (last_ && now < *last_ + interval_)) return false;
    pending_ = false;
    last_ = now;
    return true;
  }

  // True when a change was pending (and marks it done), whatever the time:
  // for a stream that ended, whose held-back change must not wait for it.
  bool Flush() noexcept { return std::exchange(pending_, false); }

  // How long until Due() can answer true; `idle` when nothing is pending.
  Duration Wait(TimePoint now, Duration idle) const noexcept {
    if (!pending_) return idle;
    if (!last_ || now >= *last_ + interval_) return Duration::zero();
    return *last_ + interval_ - now;
  }

 private:
  Duration interval_;
  bool pending_ = false;
  std::optional<TimePoint> last_;
};

}  // namespace stormguard::config_sources
