// stormguard/backoff/backoff.h: how long to wait before retry n.
//
// Three growth curves (constant, linear, exponential with any multiplier),
// always capped, each combined with one jitter rule:
//
//   none           b                                   (clients stay in lockstep)
//   full           rand(0, b)                          (AWS; lowest peak)
//   equal          b/2 + rand(0, b/2)                  (keeps a minimum gap)
//   decorrelated   min(cap, rand(base, prev * 3))      (AWS; needs no count)
//   proportional   b * rand(1 - p, 1 + p)              (gRPC: p = 0.2)
//   uniform        rand(b - spread, b + spread)        ("random backoff")
//
// where b = min(cap, curve(n)). Waits never exceed the cap (decorrelated and
// proportional are clamped too) and never go negative; any retry number,
// even 1000 with a base of one day, saturates at the cap.
//
//   auto backoff = Backoff::Create({.kind = BackoffKind::kExponential,
//                                   .base = 100ms, .cap = 30s,
//                                   .jitter = Jitter::kFull});
//   Duration wait = backoff->Next(/*retry=*/1, /*previous=*/{}, rng);
//
// Thread safety: a Backoff is immutable; Next() only touches the Random it
// is given, so one Backoff serves every thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stormguard/core/random.h"
#include "stormguard/core/result.h"
#include "stormguard/core/time.h"

namespace stormguard {

enum class BackoffKind { kConstant, kLinear, kExponential };
enum class Jitter { kNone, kFull, kEqual, kDecorrelated, kProportional, kUniform };

std::string_view BackoffKindName(BackoffKind k) noexcept;
std::string_view JitterName(Jitter j) noexcept;

struct BackoffOptions {
  BackoffKind kind = BackoffKind::kExponential;
  Duration base = std::chrono::milliseconds(100);
  // Linear growth per retry; zero means "same as base" (100, 200, 300...).
  Duration step = Duration::zero();
  double multiplier = 2.0;  // exponential growth factor, >= 1
  Duration cap = std::chrono::seconds(30);
  Jitter jitter = Jitter::kNone;
  double proportion = 0.2;             // for kProportional: a fraction of the wait, in [0, 1]
  Duration spread = Duration::zero();  // for kUniform, half-width of the range
  double decorrelated_growth = 3.0;    // for kDecorrelated, > 1

  std::vector<std::string> Validate() const;
};

class Backoff {
 public:
  // Validates; INVALID_ARGUMENT names every bad field.
  static Result<Backoff> Create(const BackoffOptions& options);

  const BackoffOptions& options() const noexcept { return o_; }

  // The un-jittered, capped wait before retry `retry` (1 = first retry).
  Duration Ceiling(int retry) const noexcept;

  // The wait before retry `retry`. `previous` is the wait returned for the
  // retry before (decorrelated jitter grows from it; zero for the first).
  Duration Next(int retry, Duration previous, Random& rng) const noexcept;

  // Smallest and largest wait Next() can return for `retry`, whatever the
  // earlier draws were.
  std::pair<Duration, Duration> Range(int retry) const noexcept;

  // The mean wait for `retry` over all draws. For decorrelated jitter it is
  // the mean of the chain started at retry 1: exact while the cap cannot cut
  // a draw short (Range(retry).second < cap), an upper bound after that (the
  // capped chain's true mean has no closed form and can be far lower).
  Duration Expected(int retry) const noexcept;

 private:
  explicit Backoff(const BackoffOptions& o) noexcept : o_(o) {}
  BackoffOptions o_;
};

}  // namespace stormguard
