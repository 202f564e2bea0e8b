// stormguard/config/status_codes.h: gRPC status code names <-> StatusCode,
// and a classifier that retries (or hedges past) exactly a set of codes.
//
// Our StatusCode values are gRPC's codes (0-16) and StatusCodeName spells
// them as gRPC does ("UNAVAILABLE"), so the map is the identity on numbers
// and on upper-case names. Following gRPC A6, a config may name a code in
// any case or by its number: "UNAVAILABLE", "unavailable" and 14 are one code.
//
//   StatusCodeFromName("deadline_exceeded");        // kDeadlineExceeded
//   StatusCodeClassifier retry_these({StatusCode::kUnavailable});
//   retry_these.Classify(Status::Unavailable("x"));  // kTransient
//   retry_these.Classify(Status::Internal("x"));     // kPermanent
//
// Thread safety: pure functions; the classifier is immutable.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "stormguard/core/classifier.h"
#include "stormguard/core/status.h"

namespace stormguard::config {

inline constexpr int kStatusCodeCount = 17;

// The code a gRPC name spells, in any case; nullopt for anything else.
std::optional<StatusCode> StatusCodeFromName(std::string_view name) noexcept;
// The code with this number (0-16); nullopt outside.
std::optional<StatusCode> StatusCodeFromNumber(std::int64_t number) noexcept;

// Success is success; a cancelled call and a downstream's do-not-retry keep
// their classes (nothing retries them); a code in the set is transient;
// every other failure is permanent. It is the classifier of a retry or a
// hedge configured with status codes (RetryConfig::retryable_status_codes,
// HedgeConfig::non_fatal_status_codes), where transient is the one class
// retried or non-fatal.
class StatusCodeClassifier final : public Classifier {
 public:
  explicit StatusCodeClassifier(const std::vector<StatusCode>& codes) noexcept;
  OutcomeClass Classify(const Status& status) const noexcept override;

 private:
  std::uint32_t codes_ = 0;  // bit n: code n is in the set
};

}  // namespace stormguard::config
