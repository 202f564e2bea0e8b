#include "stormguard/core/validation.h"

#include <charconv>
#include <cmath>

namespace stormguard {
namespace {

// The shortest text that reads back as `x` ("1.0000001", "nan", "-inf"),
// so a message shows exactly the value that was refused; whole numbers
// below 10^15 in plain digits ("1000000", not "1e+06").
std::string Shortest(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[32];
  const bool whole = std::abs(x) < 1e15 && x == std::trunc(x);
  const auto [end, ec] = whole ? std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed)
                               : std::to_chars(buf, buf + sizeof buf, x);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

}  // namespace

bool Range::Contains(double x) const noexcept {
  if (!std::isfinite(x)) return false;
  const bool above = lo_open ? x > lo : x >= lo;
  const bool below = hi_open ? x < hi : x <= hi;
  return above && below;
}

std::string Range::ToString() const {
  return std::string(lo_open ? "(" : "[") + Shortest(lo) + ", " + Shortest(hi) + (hi_open ? ")" : "]");
}

void Validator::CheckRange(double value, std::string_view field, const Range& range) {
  if (range.Contains(value)) return;
  errors_.push_back(std::string(field) + ": must be in " + range.ToString() + ", got " + Shortest(value));
}

Status ValidationStatus(std::string_view what, const std::vector<std::string>& errors) {
  if (errors.empty()) return Status::Ok();
  std::string message = "invalid " + std::string(what) + ": ";
  for (std::size_t i = 0; i < errors.size(); ++i) {
    if (i > 0) message += "; ";
    message += errors[i];
  }
  return Status::InvalidArgument(std::move(message));
}

}  // namespace stormguard
