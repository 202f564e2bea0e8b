#include "stormguard/wire/http_headers.h"

#include <limits>

#include "parse.h"
#include "stormguard/core/validation.h"
#include "stormguard/wire/header_map.h"
#include "stormguard/wire/http_date.h"

namespace stormguard {
namespace {

using wire_internal::ParseDigits;
using wire_internal::TrimOws;

constexpr std::int64_t kMaxWireMillis = kMaxWireDuration / std::chrono::milliseconds(1);
constexpr std::int64_t kMaxWireSeconds = kMaxWireDuration / std::chrono::seconds(1);
constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

Duration ClampedMillis(std::int64_t ms) noexcept {
  if (ms <= 0) return Duration::zero();
  return ms >= kMaxWireMillis ? kMaxWireDuration : std::chrono::milliseconds(ms);
}

std::int64_t FloorMillis(Duration d) noexcept { return d.count() <= 0 ? 0 : d / std::chrono::milliseconds(1); }

std::int64_t CeilUnits(Duration d, Duration unit) noexcept {
  if (d.count() <= 0) return 0;
  return d / unit + (d % unit != Duration::zero() ? 1 : 0);
}

// The time from Unix millisecond `now_ms` until Unix second `at_s`, exact
// within the wire range. Subtracting whole seconds first keeps every step
// inside int64: an RFC 850 date read near an extreme `now` is near it too.
Duration UntilUnixSecond(std::int64_t at_s, std::int64_t now_ms) noexcept {
  const bool negative = now_ms % 1000 < 0;
  const std::int64_t now_s = now_ms / 1000 - (negative ? 1 : 0);          // floor
  const std::int64_t now_sub_ms = now_ms % 1000 + (negative ? 1000 : 0);  // 0..999
  std::int64_t seconds = 0;
  if (__builtin_sub_overflow(at_s, now_s, &seconds)) {
    return at_s > now_s ? kMaxWireDuration : Duration::zero();
  }
  if (seconds <= 0) return Duration::zero();
  if (seconds > kMaxWireSeconds) return kMaxWireDuration;
  return ClampedMillis(seconds * 1000 - now_sub_ms);
}

int ClampedInt(std::int64_t v) noexcept { return static_cast<int>(v < kMaxInt ? v : kMaxInt); }

bool IsTokenChar(char c) noexcept {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

void CheckName(Validator& v, std::string_view field, std::string_view name, bool grpc) {
  bool token = true;
  bool lower = true;
  for (const char c : name) {
    token = token && IsTokenChar(c);
    lower = lower && !(c >= 'A' && c <= 'Z');
  }
  v.Check(token, field, "must be an HTTP token (letters, digits, !#$%&'*+-.^_`|~) or empty");
  if (grpc) v.Check(lower, field, "gRPC metadata keys must be lower-case");
}

}  // namespace

std::vector<std::string> WireNames::Validate() const {
  Validator v;
  CheckName(v, "request_timeout_ms", request_timeout_ms, false);
  CheckName(v, "request_deadline", request_deadline, false);
  CheckName(v, "envoy_expected_timeout_ms", envoy_expected_timeout_ms, false);
  CheckName(v, "retry_attempt", retry_attempt, false);
  CheckName(v, "envoy_attempt_count", envoy_attempt_count, true);
  CheckName(v, "no_retry", no_retry, false);
  CheckName(v, "envoy_max_retries", envoy_max_retries, true);
  CheckName(v, "retry_after", retry_after, false);
  CheckName(v, "idempotency_key", idempotency_key, false);
  CheckName(v, "grpc_timeout", grpc_timeout, true);
  CheckName(v, "grpc_previous_attempts", grpc_previous_attempts, true);
  CheckName(v, "grpc_retry_pushback", grpc_retry_pushback, true);
  CheckName(v, "grpc_idempotency_key", grpc_idempotency_key, true);
  return std::move(v).errors();
}

WireText EncodeRequestTimeoutMs(Duration remaining) noexcept { return WireText::Decimal(FloorMillis(remaining)); }

std::optional<Duration> DecodeRequestTimeoutMs(std::string_view text) noexcept {
  const auto ms = ParseDigits(TrimOws(text));
  if (!ms) return std::nullopt;
  return ClampedMillis(*ms);
}

WireText EncodeRequestDeadline(Duration remaining, std::int64_t unix_now_ms) noexcept {
  std::int64_t at = 0;
  if (__builtin_add_overflow(unix_now_ms, FloorMillis(remaining), &at)) {
    at = std::numeric_limits<std::int64_t>::max();
  }
  return WireText::Decimal(at);
}

std::optional<Duration> DecodeRequestDeadline(std::string_view text, std::int64_t unix_now_ms) noexcept {
  const auto at = ParseDigits(TrimOws(text));
  if (!at) return std::nullopt;
  std::int64_t left = 0;
  if (__builtin_sub_overflow(*at, unix_now_ms, &left)) return kMaxWireDuration;
  return ClampedMillis(left);
}

WireText EncodeRetryAttempt(int attempt) noexcept { return WireText::Decimal(attempt); }

std::optional<int> DecodeRetryAttempt(std::string_view text) noexcept {
  const auto n = ParseDigits(TrimOws(text));
  if (!n || *n == 0) return std::nullopt;
  return ClampedInt(*n);
}

WireText EncodeGrpcPreviousAttempts(int previous) noexcept { return WireText::Decimal(previous); }

std::optional<int> DecodeGrpcPreviousAttempts(std::string_view text) noexcept {
  const auto n = ParseDigits(text);
  if (!n) return std::nullopt;
  return ClampedInt(*n);
}

std::optional<bool> DecodeNoRetry(std::string_view text) noexcept {
  const std::string_view v = TrimOws(text);
  if (v == "1" || HeaderNameEquals(v, "true")) return true;
  if (v == "0" || HeaderNameEquals(v, "false")) return false;
  return std::nullopt;
}

WireText EncodeRetryAfter(Duration pause) noexcept {
  return WireText::Decimal(CeilUnits(pause, std::chrono::seconds(1)));
}

std::optional<Duration> DecodeRetryAfter(std::string_view text, std::int64_t unix_now_ms) noexcept {
  const std::string_view v = TrimOws(text);
  if (const auto seconds = ParseDigits(v)) {
    return *seconds >= kMaxWireSeconds ? kMaxWireDuration : std::chrono::seconds(*seconds);
  }
  const auto date = ParseHttpDate(v, unix_now_ms);
  if (!date) return std::nullopt;
  return UntilUnixSecond(*date, unix_now_ms);
}

WireText EncodeGrpcPushback(Duration pause) noexcept {
  const std::int64_t ms = CeilUnits(pause, std::chrono::milliseconds(1));
  return WireText::Decimal(ms < kMaxInt32 ? ms : kMaxInt32);
}

std::optional<GrpcPushback> DecodeGrpcPushback(std::string_view text) noexcept {
  const bool negative = !text.empty() && text.front() == '-';
  const auto ms = ParseDigits(negative ? text.substr(1) : text);
  if (!ms) return std::nullopt;
  if (negative) return GrpcPushback{.stop = true};
  return GrpcPushback{.delay = ClampedMillis(*ms)};
}

bool IsValidIdempotencyKey(std::string_view key, std::size_t max_length) noexcept {
  if (key.empty() || key.size() > max_length) return false;
  // HTTP drops white space around a field value: a key that began or ended
  // with a space would arrive as another key.
  if (key.front() == ' ' || key.back() == ' ') return false;
  for (const char c : key) {
    if (c < 0x20 || c > 0x7E) return false;  // char may be signed: non-ASCII is < 0 too
  }
  return true;
}

std::optional<std::string_view> DecodeIdempotencyKey(std::string_view text, std::size_t max_length) noexcept {
  const std::string_view key = TrimOws(text);
  if (!IsValidIdempotencyKey(key, max_length)) return std::nullopt;
  return key;
}

}  // namespace stormguard
