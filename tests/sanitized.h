// tests/sanitized.h: whether this test binary runs under a sanitizer, for
// the few tests that bound time or memory and must know it.
//
//   constexpr auto kHold = stormguard::testkit::kSanitized ? 4s : 1500ms;
//
// gcc says so with __SANITIZE_*__, clang with __has_feature.
#pragma once

namespace stormguard::testkit {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
inline constexpr bool kSanitized = __has_feature(address_sanitizer) || __has_feature(thread_sanitizer);
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace stormguard::testkit
