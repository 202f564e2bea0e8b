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
#include "simulate_report.h"
#include "stormguard/core/validation.h"
#include "stormguard/fleet/replica_set.h"
#include "stormguard/sim/limits.h"

namespace stormguard::cli {
namespace {

struct Output {
  bool json = false;
  bool series = false;
  std::string svg;
};

// --seed, --json, --series and --svg: what every scenario takes.
void AddCommonFlags(CLI::App& cmd, Output& out, std::uint64_t& seed) {
  AddSeedOption(cmd, seed, "random seed");
  cmd.add_flag("--json", out.json, "print one JSON object instead of the table");
  cmd.add_flag("--series", out.series, "add the per-bucket time series to the table or JSON");
  cmd.add_option("--svg", out.svg, "also write a plot of the run to this SVG file");
}

// A library validation error ("cap: must be at least base; ...") as a
// one-line flag error ("--cap: must be at least base", exit status 2); any
// other failure is printed as it is (exit status 1).
[[noreturn]] void FailOn(const Status& s) {
  if (s.code() != StatusCode::kInvalidArgument) {
    std::fprintf(stderr, "stormguard: %s\n", s.ToString().c_str());
    std::exit(1);
  }
  std::string msg = s.message();
  const std::size_t colon = msg.find(": ");
  if (colon != std::string::npos) msg = msg.substr(colon + 2);  // drop "storm options: "
  const std::size_t semi = msg.find("; ");
  if (semi != std::string::npos) msg = msg.substr(0, semi);  // the first bad field is enough
  const std::string path = msg.substr(0, msg.find(':'));     // "max_tokens", "backoff.cap"
  std::string flag = path.substr(path.rfind('.') + 1);
  for (char& c : flag) c = c == '_' ? '-' : c;
  throw CLI::ValidationError("--" + flag + msg.substr(path.size()));
}

void Emit(const Output& out, const Report& r) {
  if (!out.svg.empty()) {
    std::ofstream f(out.svg, std::ios::binary);
    f << render::RenderSvg(r.plot);
    if (!f) throw CLI::ValidationError("--svg", "cannot write '" + out.svg + "'");
  }
  if (out.json) {
    std::cout << r.json.dump(2) << "\n";
  } else {
    std::cout << r.table;
  }
}

// A progress bar on stderr, only for a person watching a terminal.
std::function<void(double)> ProgressBar(const Output& out) {
  if (out.json || isatty(STDERR_FILENO) == 0) return {};
  auto last = std::make_shared<int>(-1);
  return [last](double fraction) {
    const int pct = static_cast<int>(fraction * 100);
    if (pct == *last) return;
    *last = pct;
    std::fprintf(stderr, "\r[%-40s] %3d%%", std::string(static_cast<std::size_t>(pct * 40 / 100), '#').c_str(), pct);
    if (pct >= 100) std::fprintf(stderr, "\r%60s\r", "");
    std::fflush(stderr);
  };
}

// Clears the progress bar, then prints the run's report or its error.
template <class R>
void Show(const Output& out, const Result<R>& r, Report (*report)(const R&, bool)) {
  if (!out.json && isatty(STDERR_FILENO) != 0) std::fprintf(stderr, "\r%60s\r", "");
  if (!r.ok()) FailOn(r.status());
  Emit(out, report(*r, out.series));
}

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

std::vector<std::string> PickerNames() {
  std::vector<std::string> names;
  for (PickerKind k : sim::kAllPickers) names.emplace_back(PickerKindName(k));
  return names;
}

// The fleet's shape: clients, replicas, the gray ones, the queues.
void AddFleetShape(CLI::App& cmd, sim::FleetScenarioOptions& o, std::string& gray_mode) {
  cmd.add_option("--clients", o.clients, "clients")->capture_default_str()->check(CLI::Range(1, 10'000'000));
  cmd.add_option("--client-groups", o.client_groups, "groups of clients sharing one ReplicaSet (one view)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10'000'000));
  cmd.add_option("--replicas", o.replicas, "replicas")
      ->capture_default_str()
      ->check(CLI::Range(1, static_cast<int>(kMaxEndpoints)));
  cmd.add_option("--requests", o.requests, "requests per run (per picker, per ejection setting)")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{50'000'000}));
  cmd.add_option("--rate", o.rate, "requests per second, all clients together")
      ->capture_default_str()
      ->check(FiniteRange(0.001, 1e7));
  cmd.add_option("--gray-fraction", o.gray_fraction, "share of the replicas that are gray")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  cmd.add_option("--gray-mode", gray_mode, "how a gray replica answers badly: slow or fail")
      ->capture_default_str()
      ->check(CLI::IsMember({"slow", "fail"}));
  cmd.add_option("--gray-share", o.gray_share, "share of a gray replica's answers that are slow or fail")
      ->capture_default_str()
      ->check(FiniteRange(0, 1));
  AddDurationOption(cmd, "--gray-latency", o.gray_latency, "how long a slow gray answer takes");
  AddDurationOption(cmd, "--latency", o.latency, "median answer time of a healthy replica");
  cmd.add_option("--concurrency", o.concurrency, "attempts a replica serves at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000));
  cmd.add_option("--queue", o.queue, "attempts a replica holds waiting")
      ->capture_default_str()
      ->check(CLI::Range(0, 1'000'000));
}

void AddFleet(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("fleet",
                                    "clients and replicas, 10% of them gray: each picker, with and without "
                                    "outlier ejection");
  auto o = std::make_shared<sim::FleetScenarioOptions>();
  auto out = std::make_shared<Output>();
  auto picker = std::make_shared<std::string>();
  auto ejection = std::make_shared<std::string>("both");
  auto hedge = std::make_shared<std::string>("off");
  auto gray_mode = std::make_shared<std::string>("slow");
  AddFleetShape(*cmd, *o, *gray_mode);
  AddDurationOption(*cmd, "--deadline", o->deadline, "each request's whole budget");
  AddDurationOption(*cmd, "--attempt-timeout", o->attempt_timeout, "the longest one attempt may take");
  cmd->add_option("--max-attempts", o->max_attempts, "attempts, counting the first, each on another replica")
      ->capture_default_str()
      ->check(CLI::Range(1, static_cast<int>(Tried::kMax)));
  cmd->add_option("--picker", *picker, "one picker (default: all of them)")->check(CLI::IsMember(PickerNames()));
  cmd->add_option("--ejection", *ejection, "outlier ejection: off, on or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"off", "on", "both"}));
  cmd->add_option("--hedge", *hedge, "one hedge to another replica after the p95: off, on or both")
      ->capture_default_str()
      ->check(CLI::IsMember({"off", "on", "both"}));
  cmd->add_option("--consecutive-failures", o->outlier.consecutive_failures, "ejection after this many in a row")
      ->capture_default_str()
      ->check(CLI::Range(0, 1'000'000));
  cmd->add_option("--success-rate-request-volume", o->outlier.success_rate_request_volume,
                  "calls per interval a view needs from a replica to judge its success rate")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000'000));
  AddCommonFlags(*cmd, *out, o->seed);
  cmd->callback([o, out, picker, ejection, hedge, gray_mode] {
    if (!picker->empty()) o->pickers = {*ParsePickerKind(*picker)};
    const auto modes = [](const std::string& m) {
      return m == "both" ? std::vector<bool>{false, true} : std::vector<bool>{m == "on"};
    };
    o->ejection = modes(*ejection);
    o->hedge = modes(*hedge);
    o->gray_mode = *sim::ParseGrayMode(*gray_mode);
    o->progress = ProgressBar(*out);
    Show(*out, sim::RunFleetScenario(*o), &FleetReport);
  });
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
  AddFleet(*sim);
}

}  // namespace stormguard::cli
