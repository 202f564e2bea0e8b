// A user's first program: exponential backoff with full jitter, seeded.
#include <cstdio>

#include "stormguard/backoff/backoff.h"

int main() {
  using namespace std::chrono_literals;
  auto backoff = stormguard::Backoff::Create(
      {.kind = stormguard::BackoffKind::kExponential, .base = 100ms, .cap = 30s,
       .jitter = stormguard::Jitter::kFull});
  if (!backoff.ok()) return 1;
  stormguard::Random rng(42);
  const auto wait = backoff->Next(3, {}, rng);
  std::printf("third retry waits %.1f ms\n", stormguard::ToMillis(wait));
  return wait <= 400ms ? 0 : 1;
}
