#include "stormguard/sim/contention.h"

#include <gtest/gtest.h>

#include <map>

namespace stormguard::sim {
namespace {
using namespace std::chrono_literals;

std::map<Strategy, ContentionRow> Rows(ContentionOptions o) {
  auto r = RunContention(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::map<Strategy, ContentionRow> rows;
  for (const auto& row : r->rows) rows[row.strategy] = row;
  return rows;
}

TEST(ContentionTest, EveryWriterGetsThroughEventually) {
  for (const auto& [s, row] : Rows({.clients = 20, .runs = 5})) {
    EXPECT_EQ(row.succeeded, 20) << StrategyName(s);
    EXPECT_GE(row.calls, 20) << StrategyName(s);
    EXPECT_EQ(row.finished.size(), 20u);
  }
}

TEST(ContentionTest, OneWriterAloneNeedsOneCallAndTwoRoundTrips) {
  const auto rows = Rows({.clients = 1, .network = Latency::Fixed(10ms), .runs = 1});
  for (const auto& [s, row] : rows) {
    EXPECT_EQ(row.calls, 1) << StrategyName(s);
    EXPECT_EQ(row.completion, 40ms) << StrategyName(s);  // read and write, there and back
  }
}

// The post's conclusions: without jitter the writers stay in lockstep;
// jitter cuts the work by about half, and exponential backoff without it
// takes far longest.
TEST(ContentionTest, JitterCutsTheWorkAndPlainExponentialIsSlowest) {
  const auto rows = Rows({.clients = 50, .runs = 20});
  const double none = rows.at(Strategy::kNone).calls;
  for (Strategy s : {Strategy::kFullJitter, Strategy::kEqualJitter, Strategy::kDecorrelatedJitter}) {
    EXPECT_LT(rows.at(s).calls, 0.65 * none) << StrategyName(s);
    EXPECT_LT(rows.at(s).calls, 0.75 * rows.at(Strategy::kExponential).calls) << StrategyName(s);
    EXPECT_LT(rows.at(s).completion, rows.at(Strategy::kExponential).completion / 4) << StrategyName(s);
  }
}

TEST(ContentionTest, SameSeedSameNumbers) {
  const auto a = Rows({.clients = 30, .runs = 3, .seed = 5});
  const auto b = Rows({.clients = 30, .runs = 3, .seed = 5});
  for (const auto& [s, row] : a) {
    EXPECT_EQ(row.calls, b.at(s).calls);
    EXPECT_EQ(row.finished, b.at(s).finished);
  }
}

}  // namespace
}  // namespace stormguard::sim
