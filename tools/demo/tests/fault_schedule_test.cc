#include "demo/fault_schedule.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {

TEST(FaultScheduleTest, DrawsErrorsSlownessAndLostAnswersAtTheirRates) {
  FaultSchedule faults(FaultRates{}, 42, {});
  int errors = 0, slow = 0, lost = 0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const Fault f = faults.Draw();
    errors += f == Fault::kError;
    slow += f == Fault::kSlow;
    lost += faults.DrawLostResponse();
  }
  // 1%, 1% and 5%, within 5 standard deviations (deterministic: fixed seed).
  EXPECT_NEAR(errors, 1'000, 160);
  EXPECT_NEAR(slow, 1'000, 160);
  EXPECT_NEAR(lost, 5'000, 350);
}

TEST(FaultScheduleTest, SameSeedSameFaults) {
  FaultSchedule a(FaultRates{}, 7, {}), b(FaultRates{}, 7, {});
  for (int i = 0; i < 1'000; ++i) ASSERT_EQ(a.Draw(), b.Draw());
}

TEST(FaultScheduleTest, OnlyOperationsOfAnOutagePhaseFindCDown) {
  FaultSchedule faults(FaultRates{}, 1, {"down"});
  EXPECT_TRUE(faults.InOutage("down"));
  EXPECT_FALSE(faults.InOutage("healthy"));
  EXPECT_FALSE(faults.InOutage("recovered"));
  EXPECT_FALSE(faults.InOutage(""));
  EXPECT_FALSE(FaultSchedule(FaultRates{}, 1, {}).InOutage("down"));
}

TEST(FaultScheduleTest, GrayDrawsHitOnlyOperationsOfAGrayPhaseAtTheirShare) {
  FaultSchedule slow(FaultRates{}, 3, {}, {.phases = {"gray"}, .mode = GrayMode::kSlow, .share = 0.5});
  int hits = 0;
  constexpr int kDraws = 10'000;
  for (int i = 0; i < kDraws; ++i) {
    EXPECT_EQ(slow.DrawGray("healthy"), Fault::kNone);
    const Fault f = slow.DrawGray("gray");
    ASSERT_NE(f, Fault::kError);
    hits += f == Fault::kSlow;
  }
  EXPECT_NEAR(hits, 5'000, 250);  // 5 standard deviations, fixed seed
}

TEST(FaultScheduleTest, GrayModeFailAnswersWithAnErrorAndShareBoundsTheDraw) {
  FaultSchedule fail(FaultRates{}, 3, {}, {.phases = {"gray"}, .mode = GrayMode::kFail, .share = 1});
  FaultSchedule never(FaultRates{}, 3, {}, {.phases = {"gray"}, .mode = GrayMode::kFail, .share = 0});
  FaultSchedule healthy(FaultRates{}, 3, {});  // no gray phase: a replica that stays healthy
  for (int i = 0; i < 1'000; ++i) {
    ASSERT_EQ(fail.DrawGray("gray"), Fault::kError);
    ASSERT_EQ(never.DrawGray("gray"), Fault::kNone);
    ASSERT_EQ(healthy.DrawGray("gray"), Fault::kNone);
  }
}

}  // namespace
}  // namespace stormguard::demo
