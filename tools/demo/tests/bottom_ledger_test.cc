#include "demo/bottom_ledger.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {

TEST(BottomLedgerTest, WorkFinishedAfterTheCallerGaveUpIsOrphanWork) {
  BottomLedger ledger;
  ledger.Complete("healthy", 1'000, 999);    // in time
  ledger.Complete("healthy", 1'000, 1'000);  // just in time
  ledger.Complete("healthy", 1'000, 1'200);  // nobody waits any more
  ledger.Complete("healthy", 0, 5'000);      // give-up unknown: never orphan
  const BottomCounts c = ledger.Snapshot().phases["healthy"];
  EXPECT_EQ(c.completed, 4u);
  EXPECT_EQ(c.orphans, 1u);
}

TEST(BottomLedgerTest, EffectsBeyondTheFirstPerOperationAreDuplicates) {
  BottomLedger ledger;
  ledger.Effect("healthy", "7");
  ledger.Effect("healthy", "7");
  ledger.Effect("healthy", "7");
  ledger.Effect("healthy", "8");
  ledger.Effect("recovered", "9");
  const BottomSnapshot s = ledger.Snapshot();
  EXPECT_EQ(s.phases.at("healthy").effects, 4u);
  EXPECT_EQ(s.phases.at("healthy").duplicate_effects, 2u);
  EXPECT_EQ(s.phases.at("recovered").duplicate_effects, 0u);
}

TEST(BottomLedgerTest, ArrivalsCountPerPhaseAndPerBucketAndStayInFlightWhileVisiting) {
  BottomLedger ledger;
  {
    auto a = ledger.Arrive("down", 10'010);
    auto b = ledger.Arrive("down", 10'249);
    auto c = ledger.Arrive("healthy", 10'250);
    EXPECT_EQ(ledger.Snapshot().in_flight, 3u);
  }
  const BottomSnapshot s = ledger.Snapshot();
  EXPECT_EQ(s.in_flight, 0u);
  EXPECT_EQ(s.phases.at("down").reached, 2u);
  EXPECT_EQ(s.timeline.at(10'000), 2u);
  EXPECT_EQ(s.timeline.at(10'250), 1u);
}

TEST(BottomLedgerTest, JsonRoundTripKeepsEveryCount) {
  BottomLedger ledger;
  { auto v = ledger.Arrive("healthy", 500); }
  ledger.Complete("healthy", 100, 200);
  ledger.Effect("healthy", "1");
  ledger.Effect("healthy", "1");
  const BottomSnapshot s = BottomSnapshotFromJson(nlohmann::json::parse(ToJson(ledger.Snapshot()).dump()));
  const BottomCounts c = s.phases.at("healthy");
  EXPECT_EQ(c.reached, 1u);
  EXPECT_EQ(c.completed, 1u);
  EXPECT_EQ(c.orphans, 1u);
  EXPECT_EQ(c.effects, 2u);
  EXPECT_EQ(c.duplicate_effects, 1u);
  EXPECT_EQ(s.timeline.at(500), 1u);
  EXPECT_THROW(BottomSnapshotFromJson(nlohmann::json::parse(R"({"phases": {}})")), std::exception);
}

}  // namespace
}  // namespace stormguard::demo
