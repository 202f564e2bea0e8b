#include "backoff_report.h"

#include <algorithm>

#include "duration_flag.h"
#include "render/text_table.h"

namespace stormguard::cli {
namespace {

struct Strategy {
  std::string_view name;
  BackoffKind kind;
  Jitter jitter;
  std::string_view formula;  // n = retry number
};

constexpr Strategy kStrategies[] = {
    {"fixed", BackoffKind::kConstant, Jitter::kNone, "wait = min(cap, base)"},
    {"linear", BackoffKind::kLinear, Jitter::kNone, "wait = min(cap, base * n)"},
    {"exponential", BackoffKind::kExponential, Jitter::kNone, "wait = min(cap, base * multiplier^(n-1))"},
    {"full-jitter", BackoffKind::kExponential, Jitter::kFull,
     "wait = rand(0, b), b = min(cap, base * multiplier^(n-1))"},
    {"equal-jitter", BackoffKind::kExponential, Jitter::kEqual,
     "wait = b/2 + rand(0, b/2), b = min(cap, base * multiplier^(n-1))"},
    {"decorrelated-jitter", BackoffKind::kExponential, Jitter::kDecorrelated,
     "wait = min(cap, rand(base, 3 * previous wait))"},
};

const Strategy* FindStrategy(std::string_view name) {
  for (const Strategy& s : kStrategies) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// The library names option fields ("cap: must be at least base"); on the
// command line they are flags ("--cap: must be at least base").
Status FlagErrors(const std::vector<std::string>& errors) {
  std::string message;
  for (const std::string& e : errors) {
    if (!message.empty()) message += "; ";
    std::string flag = e.substr(0, e.find(':'));
    std::replace(flag.begin(), flag.end(), '_', '-');
    message += "--" + flag + e.substr(flag.size());
  }
  return Status::InvalidArgument(std::move(message));
}

std::string Millis(Duration d) { return FormatNumber(ToMillis(d)); }

std::string PadLeft(const std::string& s, std::size_t width) {
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

std::string FormatHeader(const BackoffReport& r) {
  const BackoffArgs& a = r.args;
  std::string out = a.strategy + ": " + std::string(r.formula) + " for retry n\n";
  out += "base " + FormatDuration(a.base) + ", cap " + FormatDuration(a.cap);
  if (r.uses_multiplier) out += ", multiplier " + FormatNumber(a.multiplier);
  out += ", " + std::to_string(a.retries) + (a.retries == 1 ? " retry" : " retries");
  if (r.jittered) out += ", seed " + std::to_string(a.seed);
  return out + "\n";
}

// One row per retry and a total row; jittered strategies add the range and
// the expected wait.
std::string FormatRows(const BackoffReport& r) {
  // The range's two ends are aligned separately so the dashes line up.
  std::size_t lo_width = Millis(r.lowest_total).size();
  std::size_t hi_width = Millis(r.highest_total).size();
  for (const BackoffRow& row : r.rows) {
    lo_width = std::max(lo_width, Millis(row.lowest).size());
    hi_width = std::max(hi_width, Millis(row.highest).size());
  }
  std::vector<std::string> header{"retry", "wait (ms)"};
  if (r.jittered) header.insert(header.end(), {"range (ms)", "expected (ms)"});
  render::TextTable table(std::move(header), render::TextTable::First::kRight);
  auto add = [&](std::string first, Duration wait, Duration lo, Duration hi, Duration expected, bool bound) {
    if (!r.jittered) {
      table.Row({std::move(first), Millis(wait)});
      return;
    }
    table.Row({std::move(first), Millis(wait), PadLeft(Millis(lo), lo_width) + " - " + PadLeft(Millis(hi), hi_width),
               (bound ? "<= " : "") + Millis(expected)});
  };
  for (const BackoffRow& row : r.rows) {
    add(std::to_string(row.retry), row.wait, row.lowest, row.highest, row.expected, row.expected_is_bound);
  }
  add("total", r.total, r.lowest_total, r.highest_total, r.expected_total, r.expected_total_is_bound);
  return table.Render();
}

std::string FormatFooter(const BackoffReport& r) {
  if (!r.jittered) return "";
  std::string out = "\nexpected total " + std::string(r.expected_total_is_bound ? "at most " : "") +
                    FormatDuration(r.expected_total) + "; this run " + FormatDuration(r.total) + " (seed " +
                    std::to_string(r.args.seed) + ")\n";
  if (r.expected_total_is_bound) {
    out +=
        "(<= marks upper bounds: the cap cuts some decorrelated draws short, and their exact "
        "mean has no closed form)\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> BackoffStrategyNames() {
  std::vector<std::string> names;
  for (const Strategy& s : kStrategies) names.emplace_back(s.name);
  return names;
}

Result<BackoffReport> MakeBackoffReport(const BackoffArgs& args) {
  const Strategy* strategy = FindStrategy(args.strategy);
  if (strategy == nullptr) {
    return Status::InvalidArgument("--strategy: '" + args.strategy + "' is not a strategy");
  }
  if (args.retries < 1) return Status::InvalidArgument("--retries: must be at least 1");
  const BackoffOptions options{.kind = strategy->kind,
                               .base = args.base,
                               .multiplier = args.multiplier,
                               .cap = args.cap,
                               .jitter = strategy->jitter};
  if (auto errors = options.Validate(); !errors.empty()) return FlagErrors(errors);
  Result<Backoff> backoff = Backoff::Create(options);
  if (!backoff.ok()) return backoff.status();

  BackoffReport report{
      .args = args,
      .formula = strategy->formula,
      .jittered = strategy->jitter != Jitter::kNone,
      .uses_multiplier = strategy->kind == BackoffKind::kExponential && strategy->jitter != Jitter::kDecorrelated};
  Random rng(args.seed);
  Duration previous = Duration::zero();
  for (int n = 1; n <= args.retries; ++n) {
    const auto [lowest, highest] = backoff->Range(n);
    previous = backoff->Next(n, previous, rng);
    const bool bound = strategy->jitter == Jitter::kDecorrelated && highest >= args.cap;
    report.rows.push_back({.retry = n,
                           .wait = previous,
                           .lowest = lowest,
                           .highest = highest,
                           .expected = backoff->Expected(n),
                           .expected_is_bound = bound});
    report.expected_total_is_bound |= bound;
    report.total = SaturatingAdd(report.total, previous);
    report.lowest_total = SaturatingAdd(report.lowest_total, lowest);
    report.highest_total = SaturatingAdd(report.highest_total, highest);
    report.expected_total = SaturatingAdd(report.expected_total, backoff->Expected(n));
  }
  return report;
}

std::string FormatBackoffTable(const BackoffReport& r) {
  return FormatHeader(r) + "\n" + FormatRows(r) + FormatFooter(r);
}

nlohmann::ordered_json BackoffReportJson(const BackoffReport& r) {
  nlohmann::ordered_json waits = nlohmann::ordered_json::array();
  nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
  nlohmann::ordered_json expected = nlohmann::ordered_json::array();
  for (const BackoffRow& row : r.rows) {
    waits.push_back(ToMillis(row.wait));
    ranges.push_back({ToMillis(row.lowest), ToMillis(row.highest)});
    expected.push_back(ToMillis(row.expected));
  }
  nlohmann::ordered_json j;
  j["strategy"] = r.args.strategy;
  j["base_ms"] = ToMillis(r.args.base);
  j["cap_ms"] = ToMillis(r.args.cap);
  j["multiplier"] = r.args.multiplier;
  j["retries"] = r.args.retries;
  j["seed"] = r.args.seed;
  j["waits_ms"] = std::move(waits);
  j["total_ms"] = ToMillis(r.total);
  j["ranges_ms"] = std::move(ranges);
  j["expected_ms"] = std::move(expected);
  j["expected_total_ms"] = ToMillis(r.expected_total);
  j["expected_is_upper_bound"] = r.expected_total_is_bound;
  return j;
}

}  // namespace stormguard::cli
