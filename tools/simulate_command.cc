// `stormguard simulate SCENARIO`: runs one of the simulator's scenarios
// (sim/) with the library's own policies on virtual time and prints a
// table, or one JSON object with --json; --svg FILE also writes a plot.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "duration_flag.h"
#include "number_flag.h"
#include "simulate_output.h"
#include "simulate_report.h"
#include "stormguard/core/validation.h"
#include "stormguard/sim/limits.h"

namespace stormguard::cli {
namespace {

using simulate::AddCommonFlags;
using simulate::Output;
using simulate::ProgressBar;
using simulate::Show;

std::vector<std::string> StrategyNames(bool with_none) {
  std::vector<std::string> names;
  if (with_none) names.emplace_back(sim::StrategyName(sim::Strategy::kNone));
  for (sim::Strategy s : sim::kBackoffStrategies) names.emplace_back(sim::StrategyName(s));
  return names;
}

void AddStorm(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("storm", "1000 clients failing at once: retry peaks per backoff strategy");
  auto o = std::make_shared<sim::StormOptions>();
  auto out = std::make_shared<Output>();
  auto backoff = std::make_shared<std::string>();
  cmd->add_option("--clients", o->clients, "clients failing at the same instant")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000'000));
  cmd->add_option("--retries", o->retries, "retries per client")
      ->capture_default_str()
      ->check(CLI::Range(0, kMaxRetryAttempts - 1));
  AddDurationOption(*cmd, "--base", o->base, "first wait");
  AddDurationOption(*cmd, "--cap", o->cap, "largest wait");
  AddDurationOption(*cmd, "--bucket", o->bucket, "width of a time bucket");
  cmd->add_option("--backoff", *backoff, "one strategy (default: all of them)")
      ->check(CLI::IsMember(StrategyNames(false)));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, backoff] {
    if (!backoff->empty()) o->strategies = {*sim::ParseStrategy(*backoff)};
    Show(*out, sim::RunStorm(*o), &StormReport);
  });
}

void AddDeadline(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("deadline", "a 250ms budget: retries judged by the time left, not by a count");
  auto o = std::make_shared<sim::DeadlineOptions>();
  auto out = std::make_shared<Output>();
  AddDurationOption(*cmd, "--budget", o->budget, "the call's whole budget");
  AddDurationOption(*cmd, "--call", o->call, "how long every call takes");
  cmd->add_option("--max-attempts", o->max_attempts, "attempts, counting the first")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  AddDurationOption(*cmd, "--base", o->base, "first backoff ceiling");
  AddDurationOption(*cmd, "--cap", o->cap, "largest backoff");
  AddDurationOption(*cmd, "--min-call", o->min_call, "least time a call needs");
  cmd->add_option("--max-tokens", o->max_tokens, "token bucket size")
      ->capture_default_str()
      ->check(FiniteRange(1, 1e9));
  cmd->add_option("--token-ratio", o->token_ratio, "tokens per success")
      ->capture_default_str()
      ->check(FiniteRange(0, 1e9));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out] { Show(*out, sim::RunDeadlineDemo(*o), &DeadlineReport); });
}

void AddBudget(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("budget", "a retry token bucket meeting 50% failures at 1000 requests/s");
  auto o = std::make_shared<sim::BudgetScenarioOptions>();
  auto out = std::make_shared<Output>();
  cmd->add_option("--rate", o->rate, "requests per second")->capture_default_str()->check(FiniteRange(0.001, 1e7));
  cmd->add_option("--failure-rate", o->failure_rate, "share of calls that fail")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd->add_option("--max-tokens", o->max_tokens, "token bucket size")
      ->capture_default_str()
      ->check(FiniteRange(1, 1e9));
  cmd->add_option("--token-ratio", o->token_ratio, "tokens per success")
      ->capture_default_str()
      ->check(FiniteRange(0, 1e9));
  AddDurationOption(*cmd, "--duration", o->duration, "how long requests arrive");
  cmd->add_option("--retries", o->retries, "retries per request at most")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  AddDurationOption(*cmd, "--latency", o->latency, "the service's answer time");
  AddDurationOption(*cmd, "--bucket", o->bucket, "width of a time bucket");
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out] { Show(*out, sim::RunBudgetScenario(*o), &BudgetReport); });
}

void AddContention(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("contention", "AWS 2015: writers racing on one row, calls and time per strategy");
  auto o = std::make_shared<sim::ContentionOptions>();
  auto out = std::make_shared<Output>();
  auto backoff = std::make_shared<std::string>();
  // At most one writer per attempt a writer may make, so every writer can finish.
  cmd->add_option("--clients", o->clients, "writers starting together")
      ->capture_default_str()
      ->check(CLI::Range(1, kMaxRetryAttempts));
  AddDurationOption(*cmd, "--base", o->base, "first wait");
  AddDurationOption(*cmd, "--cap", o->cap, "largest wait");
  AddDurationOption(*cmd, "--network", o->network.a, "mean network delay each way");
  AddDurationOption(*cmd, "--network-sd", o->network.b, "its standard deviation");
  cmd->add_option("--runs", o->runs, "average over this many runs")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  cmd->add_option("--backoff", *backoff, "one strategy (default: all of them)")
      ->check(CLI::IsMember(StrategyNames(true)));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, backoff] {
    if (!backoff->empty()) o->strategies = {*sim::ParseStrategy(*backoff)};
    Show(*out, sim::RunContention(*o), &ContentionReport);
  });
}

std::vector<std::string> ControlNames() {
  std::vector<std::string> names;
  for (sim::Control c : sim::kAllControls) names.emplace_back(sim::ControlName(c));
  return names;
}

void AddChain(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("chain", "retries multiplying down a chain (27x), and the controls that stop it");
  auto o = std::make_shared<sim::ChainScenarioOptions>();
  auto out = std::make_shared<Output>();
  auto control = std::make_shared<std::string>();
  auto failure = std::make_shared<std::string>("error");
  cmd->add_option("--layers", o->layers, "retrying layers above the bottom")
      ->capture_default_str()
      ->check(CLI::Range(1, 16));
  cmd->add_option("--retries", o->retries, "retries per layer")->capture_default_str()->check(CLI::Range(0, 100));
  cmd->add_option("--failure", *failure, "how the bottom fails")
      ->capture_default_str()
      ->check(CLI::IsMember({"error", "hang"}));
  cmd->add_option("--control", *control, "one control (default: compare all)")->check(CLI::IsMember(ControlNames()));
  cmd->add_option("--rate", o->rate, "requests per second")->capture_default_str()->check(FiniteRange(0.001, 1e7));
  AddDurationOption(*cmd, "--duration", o->duration, "how long requests arrive");
  cmd->add_option("--failure-rate", o->failure_rate, "share of bottom calls that fail or hang")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  AddDurationOption(*cmd, "--timeout", o->timeout, "per-attempt timeout at every layer");
  AddDurationOption(*cmd, "--deadline", o->deadline, "the clients' budget (sent down with --control all)");
  AddDurationOption(*cmd, "--latency", o->latency, "the bottom's time to answer");
  AddDurationOption(*cmd, "--bucket", o->bucket, "width of a time bucket");
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, control, failure] {
    o->controls = control->empty() ? std::vector<sim::Control>(sim::kAllControls.begin(), sim::kAllControls.end())
                                   : std::vector<sim::Control>{*sim::ParseControl(*control)};
    o->failure = *failure == "hang" ? sim::Failure::kHang : sim::Failure::kError;
    o->progress = ProgressBar(*out);
    Show(*out, sim::RunChainScenario(*o), &ChainReport);
  });
}

void AddMetastable(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("metastable", "HotOS'21: a capacity dip that retries turn into a lasting outage");
  auto o = std::make_shared<sim::MetastableOptions>();
  auto out = std::make_shared<Output>();
  auto control = std::make_shared<std::string>();
  cmd->add_option("--control", *control, "one control (default: none and all)")->check(CLI::IsMember(ControlNames()));
  cmd->add_option("--layers", o->layers, "retrying layers above the service")
      ->capture_default_str()
      ->check(CLI::Range(1, 8));
  cmd->add_option("--retries", o->retries, "retries per layer")->capture_default_str()->check(CLI::Range(0, 100));
  cmd->add_option("--load", o->load, "offered load as a share of capacity")
      ->capture_default_str()
      ->check(FiniteRange(0.001, 100));
  cmd->add_option("--workers", o->workers, "the service's workers")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  AddDurationOption(*cmd, "--latency", o->latency, "mean service time of one request");
  cmd->add_option("--drop", o->drop, "share of workers lost during the trigger")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  AddDurationOption(*cmd, "--trigger-at", o->trigger_at, "when the capacity drops");
  AddDurationOption(*cmd, "--trigger-for", o->trigger_for, "how long it stays down");
  AddDurationOption(*cmd, "--duration", o->duration, "how long requests arrive");
  AddDurationOption(*cmd, "--timeout", o->timeout, "per-attempt timeout at every layer");
  AddDurationOption(*cmd, "--patience", o->patience, "how long a client waits (its deadline with --control all)");
  cmd->add_option("--queue", o->queue, "the service's queue limit")
      ->capture_default_str()
      ->check(CLI::Range(0, 100'000'000));
  AddDurationOption(*cmd, "--bucket", o->bucket, "width of a time bucket");
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, control] {
    if (!control->empty()) o->controls = {*sim::ParseControl(*control)};
    o->progress = ProgressBar(*out);
    Show(*out, sim::RunMetastable(*o), &MetastableReport);
  });
}

void AddAdaptiveTimeout(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("adaptive-timeout",
                                    "a destination slowing down for everyone: a fixed per-attempt timeout "
                                    "feeds a retry storm, an adaptive one rises with the latency");
  auto o = std::make_shared<sim::AdaptiveTimeoutScenarioOptions>();
  auto out = std::make_shared<Output>();
  cmd->add_option("--rate", o->rate, "requests per second")->capture_default_str()->check(FiniteRange(0.001, 1e6));
  AddDurationOption(*cmd, "--phase", o->phase, "length of each phase: healthy, degraded, recovered");
  AddDurationOption(*cmd, "--healthy", o->healthy, "median answer time while healthy");
  AddDurationOption(*cmd, "--degraded", o->degraded, "median answer time while degraded");
  AddDurationOption(*cmd, "--fixed-timeout", o->fixed_timeout, "the fixed mode's per-attempt timeout");
  cmd->add_option("--max-attempts", o->max_attempts, "attempts, counting the first")
      ->capture_default_str()
      ->check(CLI::Range(1, 10));
  AddDurationOption(*cmd, "--deadline", o->deadline, "each request's whole budget");
  cmd->add_option("--quantile", o->adaptive.quantile, "the adaptive timeout's quantile, in (0, 1]")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd->add_option("--factor", o->adaptive.factor, "times the quantile")
      ->capture_default_str()
      ->check(FiniteRange(1, 1000));
  AddDurationOption(*cmd, "--min", o->adaptive.min, "the adaptive timeout's floor");
  AddDurationOption(*cmd, "--max", o->adaptive.max, "the adaptive timeout's ceiling");
  AddDurationOption(*cmd, "--warmup", o->adaptive.warmup, "the timeout until the window holds enough samples");
  AddDurationOption(*cmd, "--refresh", o->adaptive.refresh, "how often the quantile is recomputed");
  AddDurationOption(*cmd, "--window", o->window, "how far back the quantile looks");
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out] { Show(*out, sim::RunAdaptiveTimeoutScenario(*o), &AdaptiveTimeoutReport); });
}

}  // namespace

void RegisterSimulateCommand(CLI::App& app) {
  auto* sim = app.add_subcommand("simulate", "run a scenario on virtual time with the library's own policies");
  sim->require_subcommand(1);
  // The estimates each scenario checks before it starts (sim/limits.h).
  sim->footer("Limits: every duration is at most " + FormatDuration(kMaxFlagDuration) +
              "; a scenario is refused before it starts if its flags could make more than " +
              std::to_string(static_cast<long>(sim::kMaxAttempts)) + " attempts over all its runs, " +
              std::to_string(static_cast<long>(sim::kMaxLiveCalls)) + " calls in flight at once, or " +
              std::to_string(static_cast<long>(sim::kMaxCounters)) +
              " time-series counters (buckets x series x runs).");
  AddStorm(*sim);
  AddDeadline(*sim);
  AddBudget(*sim);
  AddChain(*sim);
  AddMetastable(*sim);
  AddContention(*sim);
  AddAdaptiveTimeout(*sim);
  simulate::AddFleet(*sim);
  simulate::AddFleetLimit(*sim);
  simulate::AddThrottle(*sim);
  simulate::AddHedge(*sim);
}

}  // namespace stormguard::cli
