#include "stormguard/core/call_context.h"

#include <gtest/gtest.h>

#include <thread>

namespace stormguard {
namespace {
using namespace std::chrono_literals;

TEST(CallContextTest, DefaultsDescribeAFirstAttemptWithoutDeadline) {
  CallContext ctx;
  EXPECT_TRUE(ctx.deadline.is_infinite());
  EXPECT_EQ(ctx.attempt, 1);
  EXPECT_FALSE(ctx.is_retry());
  EXPECT_FALSE(ctx.incoming_is_retry);
  EXPECT_FALSE(ctx.downstream_gave_up);
  EXPECT_TRUE(ctx.idempotency_key.empty());
  EXPECT_FALSE(ctx.stop.stop_possible());
  ctx.attempt = 2;
  EXPECT_TRUE(ctx.is_retry());
}

TEST(CallContextTest, NoCurrentContextOutsideAScope) { EXPECT_EQ(CurrentCallContext(), nullptr); }

TEST(CallContextTest, ScopedContextsNestAndRestore) {
  CallContext outer{.deadline = Deadline::After(TimePoint(1h), 800ms)};
  CallContext inner{.attempt = 2};
  {
    ScopedCallContext a(outer);
    EXPECT_EQ(CurrentCallContext(), &outer);
    {
      ScopedCallContext b(inner);
      EXPECT_EQ(CurrentCallContext(), &inner);
      EXPECT_EQ(CurrentCallContext()->attempt, 2);
    }
    EXPECT_EQ(CurrentCallContext(), &outer);
    EXPECT_EQ(CurrentCallContext()->deadline.Remaining(TimePoint(1h)), 800ms);
  }
  EXPECT_EQ(CurrentCallContext(), nullptr);
}

TEST(CallContextTest, CurrentContextIsPerThread) {
  CallContext ctx;
  ScopedCallContext scope(ctx);
  CallContext* seen_elsewhere = &ctx;
  std::thread([&] { seen_elsewhere = CurrentCallContext(); }).join();
  EXPECT_EQ(seen_elsewhere, nullptr);
  EXPECT_EQ(CurrentCallContext(), &ctx);
}

TEST(CallContextTest, ChangesThroughTheCurrentPointerReachTheOwner) {
  CallContext ctx;
  ScopedCallContext scope(ctx);
  CurrentCallContext()->downstream_gave_up = true;
  EXPECT_TRUE(ctx.downstream_gave_up);
}

}  // namespace
}  // namespace stormguard
