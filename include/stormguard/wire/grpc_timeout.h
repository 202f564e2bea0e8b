// stormguard/wire/grpc_timeout.h: the grpc-timeout header, by gRPC's wire rules.
//
// gRPC's PROTOCOL-HTTP2 grammar: TimeoutValue is a positive integer of at
// most 8 ASCII digits, TimeoutUnit one of H M S m u n (hours, minutes,
// seconds, milli-, micro-, nanoseconds).
//
//   EncodeGrpcTimeout(1500ms).view()   // "1500000u"
//   DecodeGrpcTimeout("15S")           // 15s
//   DecodeGrpcTimeout("123456789n")    // nullopt: 9 digits
//
// Encoder: the finest unit whose value fits in 8 digits, rounded UP, so a
// deadline is never shortened by encoding (at most one unit later). A zero or
// negative timeout encodes as "1n", the smallest positive value (what gRPC
// itself sends for an expired deadline: the receiver sees it already spent).
// Every Duration fits: Duration::max() rounds up to "2562048H", which
// decodes back as infinite.
//
// Decoder: strict. Empty, more than 8 digits, signs, spaces, a missing or
// unknown unit: nullopt. Leading zeros count as digits. "0S" is accepted as
// zero (an expired budget: refusing it is safer than ignoring it). A value
// past Duration's range (about 292 years, e.g. "99999999H") decodes as
// kInfiniteDuration, as gRPC does; the server's own limit clamps it later.
//
// Thread safety: pure functions. Never throws, never allocates.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "stormguard/core/time.h"
#include "stormguard/wire/wire_text.h"

namespace stormguard {

inline constexpr std::int64_t kGrpcTimeoutMaxValue = 99'999'999;  // 8 digits

WireText EncodeGrpcTimeout(Duration timeout) noexcept;
std::optional<Duration> DecodeGrpcTimeout(std::string_view text) noexcept;

}  // namespace stormguard
