// Needs the CLI's sources in the test binary: built when tests/CMakeLists.txt
// links stormguard_tools and defines STORMGUARD_CLI_PATH (see the tools/ note).
#ifdef STORMGUARD_CLI_PATH

#include "backoff_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace stormguard::cli {
namespace {
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

BackoffReport Report(const BackoffArgs& args) {
  Result<BackoffReport> r = MakeBackoffReport(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

std::vector<Duration> Waits(const BackoffReport& r) {
  std::vector<Duration> out;
  for (const BackoffRow& row : r.rows) out.push_back(row.wait);
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(BackoffReportTest, ReproducesSeedTableDeterministicRows) {
  const BackoffReport fixed = Report({.strategy = "fixed"});
  EXPECT_THAT(Waits(fixed), ElementsAre(100ms, 100ms, 100ms, 100ms));
  EXPECT_EQ(fixed.total, 400ms);
  const BackoffReport linear = Report({.strategy = "linear"});
  EXPECT_THAT(Waits(linear), ElementsAre(100ms, 200ms, 300ms, 400ms));
  EXPECT_EQ(linear.total, 1s);
  const BackoffReport exponential = Report({.strategy = "exponential"});
  EXPECT_THAT(Waits(exponential), ElementsAre(100ms, 200ms, 400ms, 800ms));
  EXPECT_EQ(exponential.total, 1500ms);
  EXPECT_FALSE(exponential.jittered);
}

TEST(BackoffReportTest, ReproducesSeedTableFullJitterRow) {
  const BackoffReport r = Report({.strategy = "full-jitter"});
  ASSERT_EQ(r.rows.size(), 4u);
  const Duration highs[] = {100ms, 200ms, 400ms, 800ms};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(r.rows[i].lowest, Duration::zero());
    EXPECT_EQ(r.rows[i].highest, highs[i]);
  }
  EXPECT_EQ(r.expected_total, 750ms);
  EXPECT_FALSE(r.expected_total_is_bound);
}

TEST(BackoffReportTest, WaitsAreTheLibrarysDrawsForTheSeed) {
  const BackoffReport r = Report({.strategy = "decorrelated-jitter", .retries = 6, .seed = 9});
  const Backoff b = *Backoff::Create({.base = 100ms, .cap = 30s, .jitter = Jitter::kDecorrelated});
  Random rng(9);
  Duration previous = Duration::zero();
  for (const BackoffRow& row : r.rows) {
    previous = b.Next(row.retry, previous, rng);
    EXPECT_EQ(row.wait, previous) << row.retry;
    EXPECT_EQ(std::make_pair(row.lowest, row.highest), b.Range(row.retry));
    EXPECT_EQ(row.expected, b.Expected(row.retry));
  }
}

TEST(BackoffReportTest, SameSeedSameWaitsOtherSeedOtherWaits) {
  const BackoffArgs a{.strategy = "equal-jitter", .seed = 5};
  BackoffArgs b = a;
  b.seed = 6;
  EXPECT_EQ(Waits(Report(a)), Waits(Report(a)));
  EXPECT_NE(Waits(Report(a)), Waits(Report(b)));
}

TEST(BackoffReportTest, MultiplierAndCapReachTheLibrary) {
  const BackoffReport r = Report({.base = 1s, .cap = 5s, .retries = 4, .multiplier = 3});
  EXPECT_THAT(Waits(r), ElementsAre(1s, 3s, 5s, 5s));
}

TEST(BackoffReportTest, DecorrelatedExpectedIsMarkedAsBoundOnceCapped) {
  const BackoffReport r = Report({.strategy = "decorrelated-jitter", .cap = 2s, .retries = 4});
  EXPECT_FALSE(r.rows[1].expected_is_bound);  // hi 900ms
  EXPECT_TRUE(r.rows[2].expected_is_bound);   // hi 2700ms, capped at 2s
  EXPECT_TRUE(r.expected_total_is_bound);
  EXPECT_THAT(FormatBackoffTable(r), HasSubstr("expected total at most"));
  EXPECT_EQ(BackoffReportJson(r)["expected_is_upper_bound"], true);
}

TEST(BackoffReportTest, ErrorsNameTheFlags) {
  auto error = [](const BackoffArgs& a) { return MakeBackoffReport(a).status().message(); };
  EXPECT_EQ(error({.base = 2s, .cap = 1s}), "--cap: must be at least base");
  EXPECT_EQ(error({.multiplier = 0.5}), "--multiplier: must be a finite number >= 1");
  EXPECT_EQ(error({.base = -1ms}), "--base: must not be negative");
  EXPECT_EQ(error({.cap = Duration::zero()}), "--cap: must be positive; --cap: must be at least base");
  EXPECT_EQ(error({.strategy = "decorrelated-jitter", .base = Duration::zero()}),
            "--base: must be positive for decorrelated jitter");
  EXPECT_EQ(error({.strategy = "random"}), "--strategy: 'random' is not a strategy");
  EXPECT_EQ(error({.retries = 0}), "--retries: must be at least 1");
  EXPECT_EQ(MakeBackoffReport({.retries = 0}).status().code(), StatusCode::kInvalidArgument);
}

TEST(BackoffReportTest, DeterministicTableHasOneAlignedRowPerRetryAndATotal) {
  const std::string table = FormatBackoffTable(Report({.strategy = "linear"}));
  EXPECT_THAT(Lines(table),
              ElementsAre("linear: wait = min(cap, base * n) for retry n", "base 100ms, cap 30s, 4 retries", "",
                          "retry  wait (ms)", "    1        100", "    2        200", "    3        300",
                          "    4        400", "total       1000"));
}

TEST(BackoffReportTest, JitteredTableShowsRangeExpectedAndTotals) {
  const std::vector<std::string> lines = Lines(FormatBackoffTable(Report({.strategy = "full-jitter"})));
  ASSERT_EQ(lines.size(), 11u);
  EXPECT_EQ(lines[1], "base 100ms, cap 30s, multiplier 2, 4 retries, seed 42");
  EXPECT_EQ(lines[3], "retry  wait (ms)  range (ms)  expected (ms)");
  EXPECT_THAT(lines[4], HasSubstr("0 -  100             50"));
  EXPECT_THAT(lines[7], HasSubstr("0 -  800            400"));
  EXPECT_THAT(lines[8], HasSubstr("0 - 1500            750"));
  EXPECT_THAT(lines[10], HasSubstr("expected total 750ms"));
  for (int i = 4; i <= 8; ++i) EXPECT_EQ(lines[i].size(), lines[3].size()) << lines[i];
}

TEST(BackoffReportTest, JsonCarriesWaitsRangesAndTotals) {
  const nlohmann::ordered_json j = BackoffReportJson(Report({.strategy = "full-jitter"}));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["strategy"], "full-jitter");
  EXPECT_EQ(j["base_ms"], 100.0);
  EXPECT_EQ(j["cap_ms"], 30000.0);
  EXPECT_EQ(j["retries"], 4);
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["waits_ms"].size(), 4u);
  EXPECT_EQ(j["ranges_ms"], nlohmann::ordered_json::parse("[[0,100],[0,200],[0,400],[0,800]]"));
  EXPECT_EQ(j["expected_total_ms"], 750.0);
  double sum = 0;
  for (const auto& w : j["waits_ms"]) sum += w.get<double>();
  EXPECT_NEAR(j["total_ms"].get<double>(), sum, 1e-6);
}

TEST(BackoffReportTest, StrategyNamesAreTheSixOfTheSpec) {
  EXPECT_THAT(BackoffStrategyNames(),
              ElementsAre("fixed", "linear", "exponential", "full-jitter", "equal-jitter", "decorrelated-jitter"));
}

}  // namespace
}  // namespace stormguard::cli

#endif  // STORMGUARD_CLI_PATH
