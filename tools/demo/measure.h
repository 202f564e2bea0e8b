// tools/demo/measure.h: headers the demo reads only to measure, never to decide.
//
// The load generator stamps each logical operation with its id, the phase it
// was offered in and the wall-clock time at which its caller stops waiting;
// every hop passes them down and lowers that time to its own give-up. C then
// tells work finished for somebody from work finished for nobody (orphan
// work) and counts side effects per operation (duplicate charges).
//
//   Measure m = ReadMeasure(req.headers);
//   StampMeasure(m, attempt_giveup_ms, outgoing.headers);
//
// Thread safety: pure functions.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "stormguard/core/deadline.h"
#include "stormguard/http/message.h"

namespace stormguard::demo {

struct Measure {
  std::string op;              // logical operation id
  std::string phase;           // the phase the operation was offered in
  std::int64_t giveup_ms = 0;  // wall-clock Unix ms; 0: unknown
};

Measure ReadMeasure(const httplib::Headers& headers);

// Appends the headers for one attempt whose sender gives up at
// `attempt_giveup_ms` (0: unknown); the earlier give-up wins.
void StampMeasure(const Measure& m, std::int64_t attempt_giveup_ms, http::HeaderList& out);

// The earlier of two give-up times, ignoring unknown (0) ones.
std::int64_t EarliestGiveup(std::int64_t a, std::int64_t b) noexcept;

// How many attempts each hop from here down made for one call, "1,3" (this
// hop 1, the one below 3): a relay answers with it in kAttemptsHeader (HTTP)
// or trailing metadata (gRPC), so a caller sees which layer retried. `below`
// is what the next hop answered with; one longer than kMaxAttemptsPath is
// dropped (a peer's header must not grow ours without bound).
inline constexpr const char* kAttemptsHeader = "x-demo-attempts";
inline constexpr std::size_t kMaxAttemptsPath = 64;
std::string AttemptsPath(int attempts, std::string_view below);

// `deadline` as wall-clock Unix ms (0 when infinite).
std::int64_t WallMsOf(Deadline deadline, TimePoint now, std::int64_t unix_now_ms) noexcept;

}  // namespace stormguard::demo
