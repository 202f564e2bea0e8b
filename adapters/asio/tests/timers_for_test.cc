// TimersFor: the coroutine driver's per-context timers, looked up once per
// thread and context, never stale.
#include <gtest/gtest.h>

#include <asio/io_context.hpp>
#include <optional>

#include "stormguard/asio/asio_timers.h"
#include "virtual_time.h"

namespace stormguard::testkit {
namespace {

TEST(TimersForTest, TimersInstalledAfterALookupServeTheNextLookup) {
  ManualClock clock;
  UseVirtualClock use{clock};
  asio::io_context io;
  AsyncTimers& own = TimersFor(io.get_executor());
  EXPECT_EQ(&TimersFor(io.get_executor()), &own);
  VirtualTimers installed(io.get_executor(), clock);
  UseTimers(io, installed);
  EXPECT_EQ(&TimersFor(io.get_executor()), &installed);
}

TEST(TimersForTest, ANewContextAtADestroyedOnesAddressGetsItsOwnTimers) {
  ManualClock clock;
  UseVirtualClock use{clock};
  std::optional<asio::io_context> io;
  io.emplace();
  std::optional<VirtualTimers> installed;
  installed.emplace(io->get_executor(), clock);
  UseTimers(*io, *installed);
  const AsyncTimers* old = &*installed;
  ASSERT_EQ(&TimersFor(io->get_executor()), old);
  installed.reset();
  io.reset();
  io.emplace();  // the same address
  AsyncTimers& fresh = TimersFor(io->get_executor());
  EXPECT_NE(&fresh, old);
  EXPECT_EQ(&fresh.clock(), &Clock::Real());
}

}  // namespace
}  // namespace stormguard::testkit
