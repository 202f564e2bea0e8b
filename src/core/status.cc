#include "stormguard/core/status.h"

#include <array>

namespace stormguard {

std::string_view StatusCodeName(StatusCode code) noexcept {
  static constexpr std::array<std::string_view, 17> kNames = {
      "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
      "DATA_LOSS", "UNAUTHENTICATED"};
  const auto i = static_cast<std::size_t>(code);
  return i < kNames.size() ? kNames[i] : std::string_view("UNKNOWN_CODE");
}

std::string_view OutcomeClassName(OutcomeClass c) noexcept {
  switch (c) {
    case OutcomeClass::kSuccess: return "success";
    case OutcomeClass::kTransient: return "transient";
    case OutcomeClass::kOverloaded: return "overloaded";
    case OutcomeClass::kPermanent: return "permanent";
    case OutcomeClass::kAmbiguous: return "ambiguous";
    case OutcomeClass::kDoNotRetry: return "do_not_retry";
    case OutcomeClass::kCancelled: return "cancelled";
    case OutcomeClass::kDeadlineExceeded: return "deadline_exceeded";
  }
  return "unknown";
}

std::string Status::ToString() const {
  std::string out(StatusCodeName(code_));
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  if (!source_.empty()) {
    out += " [";
    out += source_;
    out += "]";
  }
  return out;
}

}  // namespace stormguard
