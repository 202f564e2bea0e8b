// stormguard/chaos/chaos_policy.h: fault injection, to rehearse failure on purpose.
//
// A ChaosPolicy decides, call by call, whether to inject its fault: only
// while enabled, and then for a share `rate` of the calls. What it injects
// depends on its kind:
//   kError    the call does not run; the caller gets `status` at once;
//   kLatency  the call runs after a delay (`latency`, or drawn uniformly from
//             [latency, latency_max]); the delay ends early, and the call does
//             not run, when the call's stop fires (CANCELLED) or its deadline
//             passes (DEADLINE_EXCEEDED): it never waits beyond the deadline;
//   kOutcome  the call runs, and the caller gets `status` instead of its
//             answer (a lost response: the work may have taken effect).
// The pipeline runs it as a stage (pipeline/stages/chaos_stage.h), which
// belongs inside the retry, so retries see the injected faults:
//
//   auto chaos = ChaosPolicy::Create({.kind = ChaosKind::kError, .rate = 0.05,
//                                     .status = Status::Unavailable("chaos")}).value();
//   PipelineBuilder(env).AddRetry({...}).AddChaos(chaos).Build();
//   chaos->SetEnabled(false);             // from any thread, at any time
//   Status s = chaos->SetRate(0.2);       // INVALID_ARGUMENT for NaN, < 0, > 1
//
// Every injection is reported as kChaosInjected (policy "chaos", reason the
// kind's name; duration: the delay drawn, for kLatency).
// Randomness: one draw per call while enabled, from a counter-based
// generator (splitmix64 of seed + n): a seed fixes the sequence of draws;
// seed 0 seeds from the OS.
// Thread safety: every method may be called concurrently; enabled and rate
// are atomics read once per call, so a change applies from the next call.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/events.h"
#include "stormguard/core/result.h"
#include "stormguard/core/status.h"
#include "stormguard/core/time.h"

namespace stormguard {

enum class ChaosKind { kError, kLatency, kOutcome };

// "error", "latency", "outcome".
std::string_view ChaosKindName(ChaosKind kind) noexcept;

struct ChaosOptions {
  ChaosKind kind = ChaosKind::kError;
  bool enabled = true;
  double rate = 0.0;  // share of calls injected while enabled, in [0, 1]
  // kError and kOutcome: what the caller gets; must not be OK. Its source
  // becomes "chaos".
  Status status = Status::Unavailable("chaos: injected fault");
  // kLatency: the delay, fixed, or uniform in [latency, latency_max] when
  // latency_max is larger; at most one hour.
  Duration latency = Duration::zero();
  Duration latency_max = Duration::zero();
  std::uint64_t seed = 0;  // 0: from the OS
  Listener* listener = nullptr;

  std::vector<std::string> Validate() const;
};

// One call's draw: inject or not, and the delay for kLatency.
struct ChaosDecision {
  bool inject = false;
  Duration delay = Duration::zero();
};

class ChaosPolicy {
 public:
  static constexpr std::string_view kPolicy = "chaos";

  // Validates; INVALID_ARGUMENT names every bad field.
  static Result<std::shared_ptr<ChaosPolicy>> Create(ChaosOptions options);

  // Whether to inject into this call; reports kChaosInjected (at
  // clock.CoarseNow(), read only then) when it does.
  ChaosDecision Decide(const Clock& clock, int attempt) noexcept;

  void SetEnabled(bool enabled) noexcept { enabled_.store(enabled, std::memory_order_relaxed); }
  // INVALID_ARGUMENT "chaos: rate: must be in [0, 1], got nan" keeps the old rate.
  Status SetRate(double rate);

  bool enabled() const noexcept { return enabled_.load(std::memory_order_relaxed); }
  double rate() const noexcept { return rate_.load(std::memory_order_relaxed); }
  ChaosKind kind() const noexcept { return o_.kind; }
  const ChaosOptions& options() const noexcept { return o_; }
  std::uint64_t injected() const noexcept { return injected_.load(std::memory_order_relaxed); }

  // The status an injected error or outcome answers with (source "chaos").
  Status InjectedStatus() const { return o_.status; }

 private:
  explicit ChaosPolicy(ChaosOptions o) noexcept;
  double Uniform() noexcept;  // [0, 1)

  const ChaosOptions o_;
  const std::uint64_t seed_;
  std::atomic<bool> enabled_;
  std::atomic<double> rate_;
  std::atomic<std::uint64_t> draws_{0};
  std::atomic<std::uint64_t> injected_{0};
};

}  // namespace stormguard
