// `stormguard simulate throttle`: clients against a backend refusing most of
// what it is offered, with naive retries, a retry budget and the adaptive
// throttle (sim/throttle_scenario.h).
#include <algorithm>

#include "duration_flag.h"
#include "number_flag.h"
#include "simulate_output.h"
#include "stormguard/sim/throttle_scenario.h"

namespace stormguard::cli::simulate {

void AddThrottle(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("throttle",
                                    "a backend refusing 90% of the offered load: naive retries, a retry budget and "
                                    "client-side adaptive throttling side by side");
  auto o = std::make_shared<sim::ThrottleScenarioOptions>();
  auto out = std::make_shared<Output>();
  cmd->add_option("--clients", o->clients, "clients, each with its own pipeline")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  cmd->add_option("--rate", o->rate, "requests per second, all clients together")
      ->capture_default_str()
      ->check(FiniteRange(0.001, 1e6));
  cmd->add_option("--reject-share", o->reject_share, "share of the offered rate beyond the backend's room")
      ->capture_default_str()
      ->check(FiniteRange(0, 0.999));
  AddDurationOption(*cmd, "--duration", o->duration, "virtual time each run lasts");
  cmd->add_option("--max-attempts", o->max_attempts, "attempts per request, counting the first")
      ->capture_default_str()
      ->check(CLI::Range(1, 10));
  cmd->add_option("--k", o->ks, "the throttle's k, one run each")->capture_default_str()->check(FiniteRange(1, 100));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out] {
    o->ks.erase(std::unique(o->ks.begin(), o->ks.end()), o->ks.end());
    Show(*out, sim::RunThrottleScenario(*o), &ThrottleReport);
  });
}

}  // namespace stormguard::cli::simulate
