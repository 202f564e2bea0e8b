// `stormguard simulate fleet`: clients x replicas on virtual time with the
// library's ReplicaSet, retry and hedge policies (sim/fleet_scenario.h).
#include "duration_flag.h"
#include "number_flag.h"
#include "simulate_output.h"
#include "stormguard/fleet/replica_set.h"
#include "stormguard/sim/fleet_scenario.h"

namespace stormguard::cli::simulate {
namespace {

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

}  // namespace

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
  AddDurationOption(*cmd, "--failure-penalty", o->load.failure_penalty,
                    "what a failure faster than this counts as in a replica's latency average (0: off)");
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

}  // namespace stormguard::cli::simulate
