// stormguard/pipeline/internal/async_now.h: the time as an asynchronous
// call's stages see it on their way in.
//
// A call passes the stages' Start one after another on one thread until
// its attempt starts; the timeout, the bulkhead and the rate limiter each
// need "now" there, and a precise clock read costs about as much as a
// stage. So the first of them reads the clock and the rest share that
// reading, as the blocking driver's stages share Next::Now().
//
// The reading is this thread's and lasts while the call goes in: the
// outermost AsyncCall::Enter on the thread begins it, and it is dropped
// when that Enter returns and whenever an attempt starts (the attempt's own
// code may take any time). A call that continues after a wait (a timer, a
// stop, a slot handed over) enters again, so it reads afresh.
//
// The way out of an attempt shares a reading the same way, as the blocking
// driver's stages share Next::Now() after the call: the pipeline's precise
// reading at the attempt's end when it took one, else the first reading a
// stage takes there. AsyncStep::Now() and CheapNow() read through these.
#pragma once

#include "stormguard/core/clock.h"

namespace stormguard::pipeline_internal {

// The way in's reading of `clock`, read now if it has none yet.
TimePoint DescentNow(Clock& clock) noexcept;
// The way in's reading when there is one, else the coarse clock (as
// Next::CheapNow).
TimePoint DescentCheapNow(Clock& clock) noexcept;

}  // namespace stormguard::pipeline_internal
