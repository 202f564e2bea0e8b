// grpc-retry-pushback-ms: a pause in ms, or a negative value for "stop".
//
// Input: the header value. Its first 8 bytes also give a Duration to encode.
#include <cstddef>
#include <cstdint>
#include <limits>

#include "fuzz_input.h"
#include "stormguard/wire/http_headers.h"

namespace {

using std::chrono::milliseconds;
using stormguard::Duration;
using stormguard::fuzz::Require;

constexpr Duration kMaxPushback = milliseconds(std::numeric_limits<std::int32_t>::max());

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = stormguard::fuzz::AsText(data, size);
  if (const auto p = stormguard::DecodeGrpcPushback(text)) {
    const std::string_view digits = p->stop ? text.substr(1) : text;
    Require(!p->stop || text.front() == '-', "only a negative value stops");
    for (const char c : digits) Require(c >= '0' && c <= '9', "gRPC metadata: digits only");
    Require(p->delay >= Duration::zero() && p->delay <= stormguard::kMaxWireDuration,
            "a pause within [0, kMaxWireDuration]");
    Require(!p->stop || p->delay == Duration::zero(), "a stop carries no pause");
    if (!p->stop) {
      const auto back = stormguard::DecodeGrpcPushback(stormguard::EncodeGrpcPushback(p->delay));
      Require(back && !back->stop && back->delay == std::min(p->delay, kMaxPushback),
              "a pause round-trips, capped at INT32_MAX ms");
    }
  }
  // Encoding rounds up (never come back early) and never turns into a stop.
  const Duration pause(stormguard::fuzz::FirstInt64(text));
  const auto sent = stormguard::DecodeGrpcPushback(stormguard::EncodeGrpcPushback(pause));
  Require(sent && !sent->stop, "every encoded pause decodes as a pause");
  const Duration want = std::min(std::max(pause, Duration::zero()), kMaxPushback);
  Require(sent->delay >= want && sent->delay - want < milliseconds(1), "encoding rounds up to the ms");
  return 0;
}
