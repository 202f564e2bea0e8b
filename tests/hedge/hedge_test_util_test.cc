// The hedge tests' waits must fail loudly: a wait that quietly gave up would
// let a stuck driver pass as a cancelled one. A short bound keeps each death
// test quick; nothing opens the gate or arrives, so the outcome is fixed.
#include "hedge/hedge_test_util.h"

#include <gtest/gtest.h>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(HedgeTestUtilDeathTest, AGateThatNeverOpensEndsTheTest) {
  EXPECT_DEATH(hedge_testing::Gate(1ms).Wait(std::stop_token()),
               "a gate opening or a stop request did not happen within 1ms");
}

TEST(HedgeTestUtilDeathTest, ACheckpointNobodyReachesEndsTheTest) {
  EXPECT_DEATH(hedge_testing::Checkpoint(1ms).WaitFor(1), "a checkpoint arrival did not happen within 1ms");
}

TEST(HedgeTestUtilTest, AGateReleasesOnOpenOrOnAStopRequest) {
  hedge_testing::Gate open;
  open.Open();
  EXPECT_FALSE(open.Wait(std::stop_token()));
  std::stop_source stop;
  stop.request_stop();
  EXPECT_TRUE(hedge_testing::Gate().Wait(stop.get_token()));
}

}  // namespace
}  // namespace stormguard
