// The keyed answer store's unit tests' common ground: a start time, a
// request fingerprint, the scope of a "pay" key and a recorded body.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "stormguard/wire/keyed_answer_store.h"
#include "testkit/time_points.h"

namespace stormguard::testkit {

inline constexpr std::uint64_t kRequest = 7;  // a fingerprint

inline IdempotencyScope Pay(std::string_view key) { return {"", "POST", "/pay", key}; }

inline RecordedAnswer Answer(std::string body, int code = 0) {
  return {.code = code, .message = {}, .headers = {}, .body = std::move(body)};
}

}  // namespace stormguard::testkit
