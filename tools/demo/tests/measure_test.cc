#include "demo/measure.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

httplib::Headers AsHeaders(const http::HeaderList& list) {
  httplib::Headers h;
  for (const auto& [name, value] : list) h.emplace(name, value);
  return h;
}

TEST(DemoMeasureTest, EachHopLowersTheGiveUpTimeToItsOwn) {
  http::HeaderList out;
  StampMeasure({.op = "12", .phase = "down", .giveup_ms = 5'000}, 4'000, out);
  Measure m = ReadMeasure(AsHeaders(out));
  EXPECT_EQ(m.op, "12");
  EXPECT_EQ(m.phase, "down");
  EXPECT_EQ(m.giveup_ms, 4'000);
  out.clear();
  StampMeasure(m, 6'000, out);  // a later attempt give-up never extends the chain's
  EXPECT_EQ(ReadMeasure(AsHeaders(out)).giveup_ms, 4'000);
}

TEST(DemoMeasureTest, UnknownGiveUpTimesAreIgnored) {
  EXPECT_EQ(EarliestGiveup(0, 7), 7);
  EXPECT_EQ(EarliestGiveup(7, 0), 7);
  EXPECT_EQ(EarliestGiveup(0, 0), 0);
  http::HeaderList out;
  StampMeasure({.op = "1", .phase = "healthy"}, 0, out);
  EXPECT_EQ(ReadMeasure(AsHeaders(out)).giveup_ms, 0);
  EXPECT_EQ(ReadMeasure({{"x-demo-giveup-ms", "12abc"}}).giveup_ms, 0);
  EXPECT_EQ(ReadMeasure({{"x-demo-giveup-ms", "-3"}}).giveup_ms, 0);
}

TEST(DemoMeasureTest, DeadlinesBecomeWallClockMilliseconds) {
  const TimePoint now(10s);
  EXPECT_EQ(WallMsOf(Deadline::After(now, 250ms), now, 1'000'000), 1'000'250);
  EXPECT_EQ(WallMsOf(Deadline::After(now, -5ms), now, 1'000'000), 1'000'000);
  EXPECT_EQ(WallMsOf(Deadline(), now, 1'000'000), 0);
}

TEST(DemoMeasureTest, AttemptsPathNamesEveryHopAndDropsAnOversizedTail) {
  EXPECT_EQ(AttemptsPath(1, "3"), "1,3");
  EXPECT_EQ(AttemptsPath(2, ""), "2");
  EXPECT_EQ(AttemptsPath(1, std::string(kMaxAttemptsPath, '9')), "1," + std::string(kMaxAttemptsPath, '9'));
  EXPECT_EQ(AttemptsPath(1, std::string(kMaxAttemptsPath + 1, '9')), "1");  // a peer cannot grow our header
}

}  // namespace
}  // namespace stormguard::demo
