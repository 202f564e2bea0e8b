#include "stormguard/wire/grpc_timeout.h"

#include <array>
#include <limits>

#include "parse.h"

namespace stormguard {
namespace {

struct Unit {
  char symbol;
  std::int64_t nanos;
};

// Finest first: the encoder takes the first unit whose value fits.
constexpr std::array<Unit, 6> kUnits = {{
    {'n', 1},
    {'u', 1'000},
    {'m', 1'000'000},
    {'S', 1'000'000'000},
    {'M', 60'000'000'000},
    {'H', 3'600'000'000'000},
}};

constexpr std::int64_t CeilDiv(std::int64_t a, std::int64_t b) noexcept { return a / b + (a % b != 0 ? 1 : 0); }

WireText WithUnit(std::int64_t value, char symbol) noexcept {
  WireText out = WireText::Decimal(value);
  out.Append(symbol);
  return out;
}

}  // namespace

WireText EncodeGrpcTimeout(Duration timeout) noexcept {
  const std::int64_t ns = timeout.count();
  if (ns <= 0) return WithUnit(1, 'n');
  for (std::size_t i = 0; i + 1 < kUnits.size(); ++i) {
    const std::int64_t value = CeilDiv(ns, kUnits[i].nanos);
    if (value <= kGrpcTimeoutMaxValue) return WithUnit(value, kUnits[i].symbol);
  }
  // Hours: every int64 of nanoseconds fits (at most 2562048H); the clamp
  // states the wire limit rather than relying on that arithmetic.
  const Unit& hours = kUnits.back();
  const std::int64_t value = CeilDiv(ns, hours.nanos);
  return WithUnit(value < kGrpcTimeoutMaxValue ? value : kGrpcTimeoutMaxValue, hours.symbol);
}

std::optional<Duration> DecodeGrpcTimeout(std::string_view text) noexcept {
  if (text.empty()) return std::nullopt;
  const char symbol = text.back();
  for (const Unit& unit : kUnits) {
    if (unit.symbol != symbol) continue;
    const auto value = wire_internal::ParseDigits(text.substr(0, text.size() - 1), 8);
    if (!value) return std::nullopt;
    if (*value > std::numeric_limits<Duration::rep>::max() / unit.nanos) return kInfiniteDuration;
    return Duration(*value * unit.nanos);
  }
  return std::nullopt;
}

}  // namespace stormguard
