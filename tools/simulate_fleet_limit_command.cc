// `stormguard simulate fleet-limit`: one rate limit shared by a fleet through
// its store's faults, with the library's GlobalRateLimiter
// (sim/fleet_limit_scenario.h).
#include "duration_flag.h"
#include "number_flag.h"
#include "simulate_output.h"
#include "stormguard/sim/fleet_limit_scenario.h"

namespace stormguard::cli::simulate {

void AddFleetLimit(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("fleet-limit",
                                    "instances with skewed demand share one rate limit through a lease store: "
                                    "steady, a demand shift, the store down, back empty, a partition");
  auto o = std::make_shared<sim::FleetLimitScenarioOptions>();
  auto out = std::make_shared<Output>();
  cmd->add_option("--limit", o->limit, "calls per second for the whole fleet")
      ->capture_default_str()
      ->check(FiniteRange(0.001, 1e6));
  cmd->add_option("--instances", o->instances, "instances sharing it")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--demand", o->demand, "calls per second the fleet wants, split 1:2:...:n")
      ->capture_default_str()
      ->check(FiniteRange(1, 1e6));
  cmd->add_option("--burst", o->burst, "the fleet's burst, split like the limit")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  AddDurationOption(*cmd, "--phase", o->phase, "each phase's length, whole seconds");
  AddDurationOption(*cmd, "--refresh-interval", o->refresh_interval, "how often each instance renews its lease");
  AddDurationOption(*cmd, "--lease-length", o->lease_length, "how long a lease holds without a refresh");
  cmd->add_option("--partitioned", o->partitioned, "instances cut off from the store in the last phase")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out] { Show(*out, sim::RunFleetLimitScenario(*o), &FleetLimitReport); });
}

}  // namespace stormguard::cli::simulate
