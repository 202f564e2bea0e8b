// A user's first program: exponential backoff with full jitter, seeded, and
// a destination read from the JSON configuration (stormguard::config).
#include <cstdio>
#include <string>

#include "stormguard/backoff/backoff.h"
#include "stormguard/config/config_json.h"

int main() {
  using namespace std::chrono_literals;
  auto backoff = stormguard::Backoff::Create(
      {.kind = stormguard::BackoffKind::kExponential, .base = 100ms, .cap = 30s, .jitter = stormguard::Jitter::kFull});
  if (!backoff.ok()) return 1;
  stormguard::Random rng(42);
  const auto wait = backoff->Next(3, {}, rng);
  std::printf("third retry waits %.1f ms\n", stormguard::ToMillis(wait));

  auto config = stormguard::config::ParseConfig(R"({"destinations": {"inventory": {
      "pipeline": {"stages": [{"timeout": {"timeout": "1s"}}]}}}})");
  if (!config.ok()) return 1;
  const auto& stages = config->destinations.at("inventory").pipeline.stages;
  const auto* timeout = stages.at(0).options<stormguard::config::TimeoutConfig>();
  if (timeout == nullptr) return 1;
  std::printf("inventory: %zu stage, %s %lld ms\n", stages.size(), std::string(stages.at(0).kind()).c_str(),
              static_cast<long long>(timeout->timeout.timeout / 1ms));
  return wait <= 400ms && timeout->timeout.timeout == 1s ? 0 : 1;
}
