// tools/demo/slow_window.h: a stretch of wall time in which service C is slow.
//
// The chaos tests break C at a moment of their choosing, whatever operations
// are in flight then: POST /admin/slow?delay_ms=2000&for_ms=3000 makes every
// request arriving at C in the next 3 s take 2 s of work (in stormguard mode
// the work still stops at the request's deadline). Unlike the per-operation
// outage of fault_schedule.h, the window is wall time.
//
//   SlowWindow slow;
//   Status s = slow.Open(req.params, clock.Now());   // !ok: answer 400 with s.message()
//   Duration d = slow.DelayAt(clock.Now());          // zero outside the window
//
// Thread safety: all methods (one mutex; one lookup per request).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <mutex>

#include "stormguard/core/status.h"
#include "stormguard/core/time.h"

namespace stormguard::demo {

// Both parameters are whole milliseconds in [1, kMaxSlowMs]: a window long
// enough for any chaos scenario, short enough that a typo cannot wedge C.
inline constexpr std::int64_t kMaxSlowMs = 60'000;

class SlowWindow {
 public:
  // Opens (or replaces) the window from `now`; an error names the field and
  // the reason and leaves the window as it was.
  Status Open(const httplib::Params& params, TimePoint now);
  // The work time of a request arriving at `now`.
  Duration DelayAt(TimePoint now) const;

 private:
  mutable std::mutex mu_;
  TimePoint until_{};
  Duration delay_{};
};

}  // namespace stormguard::demo
