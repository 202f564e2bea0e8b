// `stormguard simulate hedge`: The Tail at Scale's hedged requests, with the
// library's HedgePolicy and LatencyTracker on virtual time
// (sim/hedge_scenario.h).
#include "duration_flag.h"
#include "number_flag.h"
#include "simulate_output.h"
#include "stormguard/sim/hedge_scenario.h"

namespace stormguard::cli::simulate {
namespace {

// The leaf latency model; every default is the tail-at-scale preset.
void AddLatencyFlags(CLI::App& cmd, sim::LatencyMixture& m, std::string& tail) {
  AddDurationOption(cmd, "--body-mean", m.body_mean, "mean of the normal body");
  AddDurationOption(cmd, "--body-sd", m.body_sd, "standard deviation of the body");
  cmd.add_option("--tail-share", m.tail_share, "share of draws from the tail")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd.add_option("--tail", tail, "shape of the tail")
      ->capture_default_str()
      ->check(CLI::IsMember({"pareto", "exponential"}));
  AddDurationOption(cmd, "--tail-scale", m.tail_scale, "the tail's least value (pareto) or mean (exponential)");
  cmd.add_option("--tail-alpha", m.tail_alpha, "the Pareto index: smaller is heavier")
      ->capture_default_str()
      ->check(FiniteRange(0.1, 100));
  cmd.add_option("--stall-share", m.stall_share, "share of draws that stall")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  AddDurationOption(cmd, "--stall-mean", m.stall_mean, "mean of a stall (exponential)");
  AddDurationOption(cmd, "--min", m.min, "every draw is at least this");
  AddDurationOption(cmd, "--max", m.max, "every draw is at most this");
}

}  // namespace

void AddHedge(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("hedge",
                                    "The Tail at Scale: a fan-out to many leaves, with and without hedged requests "
                                    "(a fixed delay and a live percentile)");
  auto o = std::make_shared<sim::HedgeScenarioOptions>();
  auto out = std::make_shared<Output>();
  auto tail = std::make_shared<std::string>("pareto");
  AddLatencyFlags(*cmd, o->latency, *tail);
  cmd->add_option("--leaves", o->leaves, "leaves each request fans out to")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000));
  cmd->add_option("--wait-for", o->wait_for, "share of the leaves a request waits for, in (0, 1]")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd->add_option("--requests", o->requests, "fan-out requests per run")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  cmd->add_option("--rate", o->rate, "fan-out requests per second")
      ->capture_default_str()
      ->check(FiniteRange(0.001, 1e6));
  AddDurationOption(*cmd, "--delay", o->delay, "the fixed run's hedge delay (the live run's until it has samples)");
  cmd->add_option("--quantile", o->quantile, "the live run hedges at this quantile of recent latency, in (0, 1)")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd->add_option("--max-extra-load", o->max_extra_load, "hedges per leaf request the budget allows")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, tail] {
    o->latency.tail = *tail == "exponential" ? sim::TailShape::kExponential : sim::TailShape::kPareto;
    Show(*out, sim::RunHedgeScenario(*o), &HedgeReport);
  });
}

}  // namespace stormguard::cli::simulate
