#include "demo/slow_window.h"

#include <gtest/gtest.h>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

const TimePoint kT0 = TimePoint{} + 100s;

TEST(SlowWindowTest, SlowsRequestsArrivingWithinTheWindowOnly) {
  SlowWindow slow;
  EXPECT_EQ(slow.DelayAt(kT0), Duration::zero());
  ASSERT_TRUE(slow.Open({{"delay_ms", "2000"}, {"for_ms", "3000"}}, kT0).ok());
  EXPECT_EQ(slow.DelayAt(kT0), 2s);
  EXPECT_EQ(slow.DelayAt(kT0 + 2999ms), 2s);
  EXPECT_EQ(slow.DelayAt(kT0 + 3s), Duration::zero());
}

TEST(SlowWindowTest, ReopeningReplacesTheWindow) {
  SlowWindow slow;
  ASSERT_TRUE(slow.Open({{"delay_ms", "2000"}, {"for_ms", "3000"}}, kT0).ok());
  ASSERT_TRUE(slow.Open({{"delay_ms", "500"}, {"for_ms", "1"}}, kT0 + 1s).ok());
  EXPECT_EQ(slow.DelayAt(kT0 + 1s), 500ms);
  EXPECT_EQ(slow.DelayAt(kT0 + 1001ms), Duration::zero());
}

TEST(SlowWindowTest, BadParametersNameTheFieldAndLeaveTheWindowAlone) {
  struct Case {
    httplib::Params params;
    const char* field;
  };
  const Case cases[] = {
      {{{"for_ms", "10"}}, "delay_ms: missing"},
      {{{"delay_ms", "10"}}, "for_ms: missing"},
      {{{"delay_ms", "10"}, {"delay_ms", "20"}, {"for_ms", "10"}}, "delay_ms: given more than once"},
      {{{"delay_ms", "0"}, {"for_ms", "10"}}, "delay_ms: '0' is not"},
      {{{"delay_ms", "60001"}, {"for_ms", "10"}}, "delay_ms: '60001' is not"},
      {{{"delay_ms", "-5"}, {"for_ms", "10"}}, "delay_ms: '-5' is not"},
      {{{"delay_ms", "1.5"}, {"for_ms", "10"}}, "delay_ms: '1.5' is not"},
      {{{"delay_ms", "nan"}, {"for_ms", "10"}}, "delay_ms: 'nan' is not"},
      {{{"delay_ms", "99999999999999999999999"}, {"for_ms", "10"}}, "delay_ms: '99999999999999999999999' is not"},
      {{{"delay_ms", "10"}, {"for_ms", ""}}, "for_ms: '' is not"},
      {{{"delay_ms", "10"}, {"for_ms", "10x"}}, "for_ms: '10x' is not"},
  };
  SlowWindow slow;
  for (const Case& c : cases) {
    const Status s = slow.Open(c.params, kT0);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(s.message().rfind(c.field, 0), 0u) << s.message();
  }
  EXPECT_EQ(slow.DelayAt(kT0), Duration::zero());
}

}  // namespace
}  // namespace stormguard::demo
