#include "stormguard/http/message.h"

#include <array>
#include <cctype>

namespace stormguard::http {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string_view> HttpResponse::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return std::string_view(value);
  }
  return std::nullopt;
}

bool IsIdempotentMethod(std::string_view method) noexcept {
  static constexpr std::array<std::string_view, 6> kIdempotent = {"GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"};
  for (std::string_view m : kIdempotent) {
    if (EqualsIgnoreCase(m, method)) return true;
  }
  return false;
}

bool IsSafeMethod(std::string_view method) noexcept {
  static constexpr std::array<std::string_view, 4> kSafe = {"GET", "HEAD", "OPTIONS", "TRACE"};
  for (std::string_view m : kSafe) {
    if (EqualsIgnoreCase(m, method)) return true;
  }
  return false;
}

}  // namespace stormguard::http
