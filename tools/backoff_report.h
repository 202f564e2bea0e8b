// tools/backoff_report.h: the table behind `stormguard backoff`.
//
// Turns the command's flags into the library's BackoffOptions, asks the
// library's Backoff for every wait (Next), its range (Range) and its mean
// (Expected), and renders the result as an aligned table or one JSON object.
// The CLI does no backoff arithmetic of its own, so it prints exactly what
// the library would wait:
//
//   Result<BackoffReport> r = MakeBackoffReport({.strategy = "linear"});
//   std::cout << FormatBackoffTable(*r);   // 100/200/300/400 ms, total 1000
//
// Thread safety: plain functions over values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "stormguard/backoff/backoff.h"
#include "stormguard/core/result.h"

namespace stormguard::cli {

struct BackoffArgs {
  std::string strategy = "exponential";
  Duration base = std::chrono::milliseconds(100);
  Duration cap = std::chrono::seconds(30);
  int retries = 4;
  double multiplier = 2.0;
  std::uint64_t seed = 42;
};

// "fixed", "linear", "exponential", "full-jitter", "equal-jitter",
// "decorrelated-jitter": the values --strategy accepts.
std::vector<std::string> BackoffStrategyNames();

struct BackoffRow {
  int retry = 0;
  Duration wait{};    // what Next() returned for this run's seed
  Duration lowest{};  // Range(retry)
  Duration highest{};
  Duration expected{};  // Expected(retry)
  // Decorrelated jitter once the cap may cut draws: Expected() is then only
  // an upper bound (see backoff.h).
  bool expected_is_bound = false;
};

struct BackoffReport {
  BackoffArgs args{};
  std::string_view formula{};  // how a wait is computed, for the header
  bool jittered = false;
  bool uses_multiplier = false;  // exponential growth (not decorrelated)
  std::vector<BackoffRow> rows{};
  Duration total{};
  Duration lowest_total{};
  Duration highest_total{};
  Duration expected_total{};
  bool expected_total_is_bound = false;
};

// INVALID_ARGUMENT for an unknown strategy or options the library rejects;
// the message names flags ("--cap: must be at least base; ...").
Result<BackoffReport> MakeBackoffReport(const BackoffArgs& args);

// A header line, then one aligned row per retry and a total row. Jittered
// strategies add the range and expected columns.
std::string FormatBackoffTable(const BackoffReport& report);

// {"strategy", "base_ms", "cap_ms", "multiplier", "retries", "seed",
//  "waits_ms", "total_ms", "ranges_ms" ([lo, hi] pairs), "expected_ms",
//  "expected_total_ms", "expected_is_upper_bound"}, in that order.
nlohmann::ordered_json BackoffReportJson(const BackoffReport& report);

}  // namespace stormguard::cli
