// A user's first program: exponential backoff with full jitter, seeded, and
// a destination read from the JSON configuration (stormguard::config).
#include <cstdio>

#include "stormguard/backoff/backoff.h"
#include "stormguard/config/config_json.h"

int main() {
  using namespace std::chrono_literals;
  auto backoff = stormguard::Backoff::Create(
      {.kind = stormguard::BackoffKind::kExponential, .base = 100ms, .cap = 30s,
       .jitter = stormguard::Jitter::kFull});
  if (!backoff.ok()) return 1;
  stormguard::Random rng(42);
  const auto wait = backoff->Next(3, {}, rng);
  std::printf("third retry waits %.1f ms\n", stormguard::ToMillis(wait));

  auto config = stormguard::config::ParseConfig(R"({"destinations": {"inventory": {
      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}]}}}})");
  if (!config.ok()) return 1;
  const auto& stages = config->destinations.at("inventory").pipeline.stages;
  std::printf("inventory: %zu stage, timeout %lld ms\n", stages.size(),
              static_cast<long long>(stages.at(0).timeout.timeout / 1ms));
  return wait <= 400ms && stages.at(0).timeout.timeout == 1s ? 0 : 1;
}
