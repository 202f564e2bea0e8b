// stormguard/core/outcome.h: outcome classes, the vocabulary of retry decisions.
//
// Retries are decided on what a failure *means*, not on raw status codes
// (docs/retry-amplification.md, "Which failures are worth a retry"):
//
//   kTransient         a lost packet, a reset connection, a 502/504: independent,
//                      a second try probably works.
//   kOverloaded        429/503, RESOURCE_EXHAUSTED: correlated; retry only
//                      within a budget and with backoff, honour pushback.
//   kPermanent         400/401/403/404/409, a bug: a retry can never succeed.
//   kAmbiguous         a timeout: the callee may have run the request, so only
//                      idempotent calls may repeat it.
//   kDoNotRetry        a downstream already retried and gave up (x-no-retry,
//                      docs/chain-protocol.md): retrying here multiplies the storm.
//   kCancelled         the caller went away.
//   kDeadlineExceeded  the whole budget is gone.
//
// Thread safety: plain values.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace stormguard {

enum class OutcomeClass : std::uint8_t {
  kSuccess,
  kTransient,
  kOverloaded,
  kPermanent,
  kAmbiguous,
  kDoNotRetry,
  kCancelled,
  kDeadlineExceeded,
};

inline constexpr int kOutcomeClassCount = 8;

// "success", "transient", ... (stable names, used in config and metrics).
std::string_view OutcomeClassName(OutcomeClass c) noexcept;

// A set of outcome classes as a bit mask: which classes retry, which count
// as a breaker failure, which trigger a fallback.
class OutcomeSet {
 public:
  constexpr OutcomeSet() noexcept = default;
  constexpr OutcomeSet(std::initializer_list<OutcomeClass> classes) noexcept {
    for (OutcomeClass c : classes) bits_ |= Bit(c);
  }
  static constexpr OutcomeSet All() noexcept { return FromBits(0xff); }

  constexpr bool contains(OutcomeClass c) const noexcept { return (bits_ & Bit(c)) != 0; }
  constexpr OutcomeSet With(OutcomeClass c) const noexcept { return FromBits(bits_ | Bit(c)); }
  constexpr OutcomeSet Without(OutcomeClass c) const noexcept { return FromBits(bits_ & ~Bit(c)); }
  constexpr bool empty() const noexcept { return bits_ == 0; }
  constexpr std::uint8_t bits() const noexcept { return bits_; }
  friend constexpr bool operator==(OutcomeSet, OutcomeSet) noexcept = default;

 private:
  static constexpr std::uint8_t Bit(OutcomeClass c) noexcept {
    return static_cast<std::uint8_t>(1u << static_cast<unsigned>(c));
  }
  static constexpr OutcomeSet FromBits(std::uint8_t b) noexcept {
    OutcomeSet s;
    s.bits_ = b;
    return s;
  }
  std::uint8_t bits_ = 0;
};

// The classes a retry may help with by default.
inline constexpr OutcomeSet kDefaultRetryable{OutcomeClass::kTransient, OutcomeClass::kOverloaded,
                                              OutcomeClass::kAmbiguous};

}  // namespace stormguard
