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

}  // namespace
}  // namespace stormguard::demo
