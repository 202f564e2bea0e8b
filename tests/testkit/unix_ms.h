// tests/testkit/unix_ms.h: wall-clock milliseconds since the Unix epoch,
// the one time base a test and the processes it starts can all read (each
// has its own steady clock).
#pragma once

#include <chrono>
#include <cstdint>

namespace stormguard::testkit {

inline std::int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace stormguard::testkit
