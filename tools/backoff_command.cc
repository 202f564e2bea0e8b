// `stormguard backoff`: prints the waits of one backoff strategy, from the
// library's own Backoff (see backoff_report.h). Bad flags and options the
// library rejects end the parse with a CLI::ValidationError, which main()
// prints as one line and exit status 2.
#include <charconv>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

#include "backoff_report.h"
#include "commands.h"
#include "duration_flag.h"

namespace stormguard::cli {
namespace {

// CLI11 itself turns "-1" into 2^64 - 1 and clamps values past 2^64.
CLI::Validator SeedValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t seed = 0;
        const char* end = text.data() + text.size();
        const auto [stop, ec] = std::from_chars(text.data(), end, seed);
        if (ec == std::errc() && stop == end) return "";
        return "'" + text + "' is not an integer from 0 to 18446744073709551615";
      },
      "", "seed");
}

}  // namespace

void RegisterBackoffCommand(CLI::App& app) {
  struct Flags {
    BackoffArgs args;
    bool json = false;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "backoff", "print each wait of a backoff strategy, its range and the total");
  cmd->add_option("--strategy", flags->args.strategy, "how waits grow and are jittered")
      ->type_name("STRATEGY")
      ->check(CLI::IsMember(BackoffStrategyNames()))
      ->capture_default_str();
  AddDurationOption(*cmd, "--base", flags->args.base, "the first wait");
  AddDurationOption(*cmd, "--cap", flags->args.cap, "no wait is longer");
  cmd->add_option("--retries", flags->args.retries, "how many waits to print")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--multiplier", flags->args.multiplier,
                  "growth per retry of the exponential strategies (>= 1)")
      ->capture_default_str();
  cmd->add_option("--seed", flags->args.seed, "seed of the jitter's random source")
      ->check(SeedValidator())
      ->capture_default_str();
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
