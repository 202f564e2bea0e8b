// stormguard/wire/http_headers.h: the chain protocol's header names and codecs.
//
// docs/chain-protocol.md, "What crosses the wire" (defaults; every name is configurable):
//
//   meaning                    HTTP                            gRPC
//   time left for the request  x-request-timeout-ms: 842       grpc-timeout
//                              x-request-deadline (Unix ms)
//                              x-envoy-expected-rq-timeout-ms
//   this request is a retry    x-retry-attempt: 2              grpc-previous-rpc-attempts: 1
//                              x-envoy-attempt-count: 2        x-envoy-attempt-count: 2
//   do not retry above         x-no-retry: 1                   grpc-retry-pushback-ms: -1
//   local sidecar: no retries  x-envoy-max-retries: 0          x-envoy-max-retries: 0
//   server asks for a pause    Retry-After: 3                  grpc-retry-pushback-ms: 3000
//   one logical operation      Idempotency-Key                 idempotency-key
//
//   DecodeRequestTimeoutMs("842")              // 842ms
//   DecodeRequestTimeoutMs("-5")               // nullopt (garbage is absent)
//   DecodeRetryAfter("120", now_ms)            // 120s
//   EncodeRequestTimeoutMs(842700us).view()    // "842"
//
// Rules every decoder follows: garbage (signs, hex, inner spaces, NULs, more
// than 18 digits, empty) decodes to nullopt and never throws; durations are
// clamped to kMaxWireDuration; counts to INT_MAX. HTTP codecs ignore the
// optional whitespace around a field value (RFC 9110 section 5.5); the gRPC
// ones (grpc-retry-pushback-ms, grpc-previous-rpc-attempts, and grpc-timeout
// in grpc_timeout.h) are strict.
//
// Rounding: millisecond encoders round DOWN, so a hop never receives more
// time than its caller has left (a budget only shrinks); Retry-After and
// pushback encoders round UP, so a client never comes back early.
//
// Thread safety: pure functions and constant data. The codecs never allocate.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stormguard/core/time.h"
#include "stormguard/wire/wire_text.h"

namespace stormguard {

// The header names, configurable so users can rename them. An empty name
// turns that header off (neither read nor written). Names are compared
// case-insensitively when read. The views must outlive every use: string
// literals, or strings owned by the service's configuration.
struct WireNames {
  std::string_view request_timeout_ms = "x-request-timeout-ms";
  std::string_view request_deadline = "x-request-deadline";
  std::string_view envoy_expected_timeout_ms = "x-envoy-expected-rq-timeout-ms";
  std::string_view retry_attempt = "x-retry-attempt";
  std::string_view envoy_attempt_count = "x-envoy-attempt-count";  // read only
  std::string_view no_retry = "x-no-retry";
  std::string_view envoy_max_retries = "x-envoy-max-retries";  // written only, when asked
  std::string_view retry_after = "Retry-After";
  std::string_view idempotency_key = "Idempotency-Key";
  std::string_view grpc_timeout = "grpc-timeout";
  std::string_view grpc_previous_attempts = "grpc-previous-rpc-attempts";
  std::string_view grpc_retry_pushback = "grpc-retry-pushback-ms";
  std::string_view grpc_idempotency_key = "idempotency-key";

  // Each name must be empty or an HTTP token; gRPC names, and the Envoy
  // names that both transports use, also lower-case.
  std::vector<std::string> Validate() const;
};

inline constexpr WireNames kDefaultWireNames{};

// Decoded durations never exceed this (ten years): a huge header value is
// clamped to it, so it stays finite and arithmetic on it cannot overflow.
inline constexpr Duration kMaxWireDuration = std::chrono::hours(24 * 365 * 10);

// x-request-timeout-ms and x-envoy-expected-rq-timeout-ms: decimal ms.
// Negative encodes as "0" (no time left).
WireText EncodeRequestTimeoutMs(Duration remaining) noexcept;
std::optional<Duration> DecodeRequestTimeoutMs(std::string_view text) noexcept;

// x-request-deadline: absolute Unix ms. The decoder returns the time left at
// `unix_now_ms`: zero once passed. Subject to clock skew between hosts; the
// relative header is preferred.
WireText EncodeRequestDeadline(Duration remaining, std::int64_t unix_now_ms) noexcept;
std::optional<Duration> DecodeRequestDeadline(std::string_view text, std::int64_t unix_now_ms) noexcept;

// x-retry-attempt: the attempt number, 1 for the first try. "0" is garbage.
WireText EncodeRetryAttempt(int attempt) noexcept;
std::optional<int> DecodeRetryAttempt(std::string_view text) noexcept;

// x-envoy-attempt-count: what an Envoy sidecar counts (with the route's
// include_request_attempt_count), 1 for the first try as x-retry-attempt,
// and decoded by the same rules: "0", signs, more than 18 digits are garbage.
inline std::optional<int> DecodeEnvoyAttemptCount(std::string_view text) noexcept { return DecodeRetryAttempt(text); }

// x-envoy-max-retries: how often the local sidecar may retry this request;
// stormguard only ever writes "0" (see InjectOptions::ask_sidecar_not_to_retry).
inline constexpr std::string_view kEnvoyNoRetriesValue = "0";

// grpc-previous-rpc-attempts: attempts before this one (0 on the first try).
WireText EncodeGrpcPreviousAttempts(int previous) noexcept;
std::optional<int> DecodeGrpcPreviousAttempts(std::string_view text) noexcept;

// x-no-retry: "1" or "true" (any case) is true, "0" or "false" is false.
inline constexpr std::string_view kNoRetryValue = "1";
std::optional<bool> DecodeNoRetry(std::string_view text) noexcept;

// Retry-After: delay-seconds or an HTTP-date (see http_date.h), as the pause
// from `unix_now_ms`; a date in the past gives zero.
WireText EncodeRetryAfter(Duration pause) noexcept;
std::optional<Duration> DecodeRetryAfter(std::string_view text, std::int64_t unix_now_ms) noexcept;

// grpc-retry-pushback-ms (gRPC A6): a non-negative count of ms is a pause; a
// negative value means "do not retry". Unparseable: nullopt (A6 reads that as
// "do not retry" too; ReadRetryHints in propagation.h does so).
struct GrpcPushback {
  bool stop = false;                  // negative: never retry this call
  Duration delay = Duration::zero();  // the pause, when !stop
};
inline constexpr std::string_view kGrpcPushbackStopValue = "-1";
// The pause in ms, rounded up and capped at INT32_MAX (A6: a signed 32-bit
// value); negative encodes as "0".
WireText EncodeGrpcPushback(Duration pause) noexcept;
std::optional<GrpcPushback> DecodeGrpcPushback(std::string_view text) noexcept;

// Idempotency-Key: an opaque key of 1 to `max_length` printable ASCII
// characters (0x20-0x7E; no control characters, so it can never split a
// header), neither starting nor ending with a space (HTTP strips those, so
// the key would arrive changed). The decoder returns the key without
// surrounding whitespace.
inline constexpr std::size_t kMaxIdempotencyKeyLength = 256;
bool IsValidIdempotencyKey(std::string_view key, std::size_t max_length = kMaxIdempotencyKeyLength) noexcept;
std::optional<std::string_view> DecodeIdempotencyKey(std::string_view text,
                                                     std::size_t max_length = kMaxIdempotencyKeyLength) noexcept;

}  // namespace stormguard
