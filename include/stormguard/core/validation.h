// stormguard/core/validation.h: collecting every bad field of an options struct.
//
// Options are plain structs; their Validate() returns every problem, each as
// "field.path: reason", so a user fixes a config in one round:
//
//   Validator v;
//   v.Check(o.max_attempts >= 1, "max_attempts", "must be at least 1");
//   v.CheckRange(o.retry_ratio, "retry_ratio", {0, 1000});
//   v.Nest("backoff", o.backoff.Validate());
//   return v.errors();   // {"max_attempts: must be at least 1", ...}
//
// Factories turn a non-empty list into Status::InvalidArgument, so an invalid
// component can never be constructed.
//
// Units: durations are std::chrono; every share, rate or proportion is a
// fraction (0.2, not 20), checked with CheckRange(x, field, kFraction) or
// its own bounds when it may exceed 1 (docs/options.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/status.h"

namespace stormguard {

// An interval of doubles: [lo, hi] by default, open at either end on request.
struct Range {
  double lo = 0.0;
  double hi = 1.0;
  bool lo_open = false;  // (lo, ...
  bool hi_open = false;  // ..., hi)

  // False for NaN and infinities, whatever the bounds.
  bool Contains(double x) const noexcept;
  std::string ToString() const;  // "[0, 1]", "(0, 1]", "[0.5, 1)"
};

// A share, rate or proportion.
inline constexpr Range kFraction{0.0, 1.0};
// A share that must not be zero (a threshold of 0 would always fire).
inline constexpr Range kPositiveFraction{0.0, 1.0, /*lo_open=*/true};

class Validator {
 public:
  void Check(bool ok, std::string_view field, std::string_view reason) {
    if (!ok) errors_.push_back(std::string(field) + ": " + std::string(reason));
  }
  // "field: must be in [0, 1], got nan" unless `range` contains `value`.
  void CheckRange(double value, std::string_view field, const Range& range);
  // Adds a nested struct's errors under "prefix.".
  void Nest(std::string_view prefix, const std::vector<std::string>& nested) {
    for (const auto& e : nested) errors_.push_back(std::string(prefix) + "." + e);
  }
  const std::vector<std::string>& errors() const& noexcept { return errors_; }
  std::vector<std::string> errors() && noexcept { return std::move(errors_); }

 private:
  std::vector<std::string> errors_;
};

// OK for no errors; otherwise INVALID_ARGUMENT "<what>: e1; e2; ...".
Status ValidationStatus(std::string_view what, const std::vector<std::string>& errors);

}  // namespace stormguard
