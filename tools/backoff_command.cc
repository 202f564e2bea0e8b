// `stormguard backoff`: prints the waits of one backoff strategy, from the
// library's own Backoff (see backoff_report.h). Bad flags and options the
// library rejects end the parse with a CLI::ValidationError, which main()
// prints as one line and exit status 2.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "backoff_report.h"
#include "commands.h"
#include "duration_flag.h"
#include "number_flag.h"

namespace stormguard::cli {

void RegisterBackoffCommand(CLI::App& app) {
  struct Flags {
    BackoffArgs args;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand("backoff", "print each wait of a backoff strategy, its range and the total");
  cmd->add_option("--strategy", flags->args.strategy, "how waits grow and are jittered")
      ->type_name("STRATEGY")
      ->check(CLI::IsMember(BackoffStrategyNames()))
      ->capture_default_str();
  AddDurationOption(*cmd, "--base", flags->args.base, "the first wait");
  AddDurationOption(*cmd, "--cap", flags->args.cap, "no wait is longer");
  cmd->add_option("--retries", flags->args.retries, "how many waits to print")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--multiplier", flags->args.multiplier, "growth per retry of the exponential strategies")
      ->check(FiniteRange(1, 1000))
      ->capture_default_str();
  AddSeedOption(*cmd, flags->args.seed, "seed of the jitter's random source");
  cmd->add_flag("--json", flags->json, "print one JSON object instead of a table");

  cmd->callback([flags] {
    Result<BackoffReport> report = MakeBackoffReport(flags->args);
    if (!report.ok()) throw CLI::ValidationError(report.status().message());
    if (flags->json) {
      std::cout << BackoffReportJson(*report).dump() << '\n';
    } else {
      std::cout << FormatBackoffTable(*report);
    }
  });
}

}  // namespace stormguard::cli
