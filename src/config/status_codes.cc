#include "stormguard/config/status_codes.h"

#include <cctype>

namespace stormguard::config {
namespace {

bool SameIgnoringCase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(a[i])) != std::toupper(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<StatusCode> StatusCodeFromName(std::string_view name) noexcept {
  for (int i = 0; i < kStatusCodeCount; ++i) {
    const auto code = static_cast<StatusCode>(i);
    if (SameIgnoringCase(name, StatusCodeName(code))) return code;
  }
  return std::nullopt;
}

std::optional<StatusCode> StatusCodeFromNumber(std::int64_t number) noexcept {
  if (number < 0 || number >= kStatusCodeCount) return std::nullopt;
  return static_cast<StatusCode>(number);
}

StatusCodeClassifier::StatusCodeClassifier(const std::vector<StatusCode>& codes) noexcept {
  for (StatusCode c : codes) {
    const auto n = static_cast<unsigned>(c);
    if (n < kStatusCodeCount) codes_ |= std::uint32_t{1} << n;
  }
}

OutcomeClass StatusCodeClassifier::Classify(const Status& status) const noexcept {
  if (status.ok()) return OutcomeClass::kSuccess;
  if (status.hints().do_not_retry) return OutcomeClass::kDoNotRetry;
  if (status.code() == StatusCode::kCancelled) return OutcomeClass::kCancelled;
  const auto n = static_cast<unsigned>(status.code());
  return n < kStatusCodeCount && (codes_ & (std::uint32_t{1} << n)) != 0 ? OutcomeClass::kTransient
                                                                         : OutcomeClass::kPermanent;
}

}  // namespace stormguard::config
