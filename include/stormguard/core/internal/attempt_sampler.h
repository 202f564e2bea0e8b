// When an attempt's end needs a precise clock read (AttemptTiming::kSampled).
//
// A fast attempt is one the coarse clock did not see pass: its coarse end
// reading is not after its precise start, so it took less than a tick
// (CLOCK_MONOTONIC_COARSE: 1-4 ms). Each thread times 1 fast attempt in
// kAttemptSampleEvery with that weight; every other attempt is timed exactly.
//
// Each thread starts its countdown at its own phase, drawn at its first fast
// attempt. With one fixed phase, every thread would leave its first 15 fast
// attempts untimed, and a program of many threads making a few calls each
// would report almost none: the estimate is unbiased only if the phase is
// uniform over the threads (attempt_sampler.cc).
#pragma once

#include <cstdint>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"

namespace stormguard::core_internal {

// The countdown of a thread that has not drawn its phase yet.
inline constexpr std::uint32_t kPhaseUndrawn = ~std::uint32_t{0};

// Fast attempts this thread leaves untimed before it times one. Constant
// initialised, so reading it needs no guard.
inline thread_local std::uint32_t tls_untimed_left = kPhaseUndrawn;

// A new thread's countdown, in [0, kAttemptSampleEvery).
std::uint32_t DrawAttemptPhase() noexcept;
// Restarts the phases threads draw from now on, from `seed` (tests).
void SeedAttemptSampling(std::uint64_t seed) noexcept;
// This thread leaves `untimed` fast attempts untimed, then times one (tests).
inline void SetAttemptPhase(std::uint32_t untimed) noexcept { tls_untimed_left = untimed % kAttemptSampleEvery; }

struct AttemptEnd {
  TimePoint at;                          // the precise end; the start when not timed
  Duration duration = Duration::zero();  // zero when not timed
  std::uint32_t weight = 0;              // Event::weight
};

// The weight of a sampled attempt from `start` whose end the coarse clock
// read as `coarse_end`: 0 means no precise read is needed.
inline std::uint32_t SampledWeight(TimePoint start, TimePoint coarse_end) noexcept {
  if (coarse_end > start) return 1;  // a tick passed: it may be slow, so the tail stays exact
  std::uint32_t left = tls_untimed_left;
  if (left == kPhaseUndrawn) [[unlikely]]
    left = DrawAttemptPhase();
  if (left != 0) {
    tls_untimed_left = left - 1;
    return 0;
  }
  tls_untimed_left = kAttemptSampleEvery - 1;
  return kAttemptSampleEvery;
}

// The end of the attempt that started at `start` (a precise reading), timed
// as `timing` asks: kSampled reads the coarse clock, and the precise one
// only for the attempts it times.
inline AttemptEnd EndAttempt(Clock& clock, AttemptTiming timing, TimePoint start) noexcept {
  std::uint32_t weight = 1;
  if (timing == AttemptTiming::kSampled) {
    weight = SampledWeight(start, clock.CoarseNow());
    if (weight == 0) return {.at = start};
  }
  const TimePoint end = clock.Now();
  return {.at = end, .duration = end - start, .weight = weight};
}

}  // namespace stormguard::core_internal
