// ReadRetryHints: x-no-retry, Retry-After and grpc-retry-pushback-ms of a
// response into RetryHints; then the hints written back (HTTP and gRPC) and
// read again, as a proxy relaying them would.
//
// Input: a first line "unix_now_ms max_pushback_ms" (either may be missing),
// then header lines "name: value" (see fuzz_input.h).
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "fuzz_input.h"
#include "stormguard/wire/propagation.h"

namespace {

namespace fz = stormguard::fuzz;
using fz::Require;
using std::chrono::milliseconds;
using std::chrono::seconds;
using stormguard::Duration;
using stormguard::RetryHints;

constexpr Duration kMaxGrpcPushback = milliseconds(std::numeric_limits<std::int32_t>::max());

Duration Millis(std::int64_t ms) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1'000'000;
  return milliseconds(std::clamp(ms, -kMax, kMax));
}

// Every value of the header `name` (names compare case-insensitively).
std::vector<std::string_view> All(const fz::HeaderList& h, std::string_view name) {
  std::vector<std::string_view> out;
  for (const auto& [key, value] : h) {
    if (std::equal(key.begin(), key.end(), name.begin(), name.end(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      out.push_back(value);
    }
  }
  return out;
}

// The hints, decoded header by header, independently of ReadRetryHints: a
// repeated header reads the most cautious way (any do-not-retry or stop
// wins, and the longest pause).
void CheckRead(const fz::HeaderList& h, const RetryHints& hints, std::int64_t unix_ms, Duration max) {
  const stormguard::WireNames& n = stormguard::kDefaultWireNames;
  bool no_retry = false;
  for (const std::string_view v : All(h, n.no_retry)) no_retry = no_retry || stormguard::DecodeNoRetry(v) == true;
  Require(hints.do_not_retry == no_retry, "do_not_retry iff an x-no-retry says so");
  bool stop = false;
  std::optional<Duration> pause;
  const auto longer = [&pause](Duration d) { pause = std::max(pause.value_or(d), d); };
  for (const std::string_view v : All(h, n.grpc_retry_pushback)) {
    const auto pushback = stormguard::DecodeGrpcPushback(v);
    if (!pushback || pushback->stop) {
      stop = true;
    } else {
      longer(pushback->delay);
    }
  }
  Require(hints.pushback_stop == stop, "a negative or unparseable gRPC pushback stops");
  if (hints.pushback_stop) {
    Require(!hints.pushback.has_value(), "a stop carries no pause");
    return;
  }
  for (const std::string_view v : All(h, n.retry_after)) {
    if (const auto after = stormguard::DecodeRetryAfter(v, unix_ms)) longer(*after);
  }
  Require(hints.pushback.has_value() == pause.has_value(), "a pause iff a header asked for one");
  const Duration cap = std::max(max, Duration::zero());
  if (pause) {
    Require(*hints.pushback == std::clamp(*pause, Duration::zero(), cap), "the longer pause, clamped");
  }
}

RetryHints Relay(const RetryHints& hints, bool grpc, std::int64_t unix_ms, Duration max) {
  fz::HeaderList out;
  if (grpc) {
    stormguard::InjectRetryHintsGrpc(hints, [&](std::string_view k, std::string_view v) { out.emplace_back(k, v); });
  } else {
    stormguard::InjectRetryHintsHttp(hints, [&](std::string_view k, std::string_view v) { out.emplace_back(k, v); });
  }
  return stormguard::ReadRetryHints(stormguard::HeaderGetter(out), unix_ms, max);
}

// Relayed hints still stop a stop, and never shorten a pause.
void CheckRelay(const RetryHints& hints, std::int64_t unix_ms, Duration max) {
  const bool stop = hints.do_not_retry || hints.pushback_stop;
  const Duration cap = std::max(max, Duration::zero());
  const RetryHints http = Relay(hints, false, unix_ms, max);
  Require(http.do_not_retry == stop && !http.pushback_stop, "HTTP relays a stop as x-no-retry");
  Require(http.pushback.has_value() == hints.pushback.has_value(), "HTTP relays the pause");
  if (hints.pushback) {
    const Duration up = *http.pushback - *hints.pushback;
    Require(up >= Duration::zero() && (up < seconds(1) || *http.pushback == cap),
            "Retry-After rounds up to the second, within the cap");
  }
  const RetryHints grpc = Relay(hints, true, unix_ms, max);
  Require(grpc.pushback_stop == stop && !grpc.do_not_retry, "gRPC relays a stop as a negative pushback");
  Require(grpc.pushback.has_value() == (hints.pushback.has_value() && !stop), "gRPC relays the pause");
  if (grpc.pushback) {
    const Duration want = std::min(*hints.pushback, kMaxGrpcPushback);
    Require(*grpc.pushback >= want && *grpc.pushback - want < milliseconds(1),
            "grpc-retry-pushback-ms rounds up to the ms, capped at INT32_MAX");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [line, rest] = fz::SplitFirstLine(fz::AsText(data, size));
  const std::int64_t unix_ms = fz::NumberAt(line, 0, fz::kDefaultUnixMs);
  const Duration max_pushback = Millis(fz::NumberAt(line, 1, 30'000));
  const fz::HeaderList headers = fz::ParseHeaderLines(rest);
  const RetryHints hints = stormguard::ReadRetryHints(headers, unix_ms, max_pushback);
  CheckRead(headers, hints, unix_ms, max_pushback);
  CheckRelay(hints, unix_ms, max_pushback);
  return 0;
}
