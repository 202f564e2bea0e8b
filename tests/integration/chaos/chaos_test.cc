// Chaos on the live chain: steady load through A -> B -> C (real processes
// on loopback, stormguard at every hop) while one service is killed, frozen
// or slowed. For each fault, the chain must:
//   - apply no charge twice (C's ledger, charges carry idempotency keys);
//   - answer every request by its deadline plus 50 ms;
//   - be back to >= 99% success within 2 s of the fault ending;
//   - do no orphan work (C finishing work after its caller's deadline);
//   - leave no process behind.
// Each scenario prints the figures it measured.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>

#include "chaos_load.h"
#include "cli_process.h"
#include "live_chain.h"
#include "stormguard/core/clock.h"

namespace stormguard::demo::chaos {
namespace {
using namespace std::chrono_literals;

constexpr Duration kMaxLateness = 50ms;
constexpr Duration kMaxRecovery = 2s;
constexpr Duration kSteadyBefore = 3s;
// Long enough for the 1 s success windows that end within kMaxRecovery of the fault.
constexpr Duration kSteadyAfter = 4s;
constexpr Duration kRestartDelay = 1s;  // a supervisor noticing B died and starting it again
constexpr Duration kPause = 2s;
constexpr Duration kSlowAnswer = 2s, kSlowFor = 3s;

// Breaks the chain when the load reaches its fault phase; returns when the
// fault has ended (the chain is whole again).
using Fault = std::function<Result<TimePoint>(LiveChain&, const SteadyLoad&)>;

class ChaosTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto chain = LiveChain::Start(/*seed=*/7);
    ASSERT_TRUE(chain.ok()) << chain.status().ToString();
    chain_ = std::move(chain).value();
  }

  // Every service stopped and reaped, the killed one too.
  void TearDown() override {
    if (!chain_) return;
    chain_->Stop();
    for (pid_t pid : chain_->pids()) EXPECT_NE(::kill(pid, 0), 0) << "service " << pid << " still runs";
    EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
  }

  void RunAndJudge(const std::string& scenario, Duration fault_length, const Fault& fault) {
    SteadyLoad load(chain_->entry_port(), {.before = kSteadyBefore, .fault = fault_length, .after = kSteadyAfter});
    Clock::Real().SleepUntil(load.fault_start(), {});
    Result<TimePoint> fault_end = fault(*chain_, load);
    const std::vector<OperationResult> results = load.Finish();
    ASSERT_TRUE(fault_end.ok()) << fault_end.status().ToString();
    Result<BottomSnapshot> ledger = chain_->SettledLedger();
    ASSERT_TRUE(ledger.ok()) << ledger.status().ToString();
    const ChaosFigures f =
        Tally(results, load.Offset(load.fault_start()), load.Offset(*fault_end), load.end(), *ledger);
    const std::string figures = Format(scenario, f);
    std::fputs(figures.c_str(), stdout);
    RecordProperty("figures", figures);

    ASSERT_GT(f.requests, 300u) << figures;       // the load really ran
    EXPECT_GT(f.charges, 0u) << figures;          // so "no duplicate" means something
    EXPECT_LT(f.success_during, 0.5) << figures;  // the fault really bit
    EXPECT_EQ(f.duplicate_charges, 0u) << figures;
    EXPECT_LE(f.worst_lateness, kMaxLateness) << figures;
    ASSERT_TRUE(f.recovery.has_value()) << figures;
    EXPECT_LE(*f.recovery, kMaxRecovery) << figures;
    EXPECT_EQ(f.orphans, 0u) << figures;
  }

  std::unique_ptr<LiveChain> chain_;
};

TEST_F(ChaosTest, KillNineBThenStartItAgain) {
  RunAndJudge("kill -9 B, restarted 1 s later", kRestartDelay,
              [](LiveChain& chain, const SteadyLoad& load) -> Result<TimePoint> {
                chain.KillB();
                Clock::Real().SleepUntil(load.fault_end(), {});
                if (Status s = chain.RestartB(); !s.ok()) return s;
                return Clock::Real().Now();  // B serves again
              });
}

TEST_F(ChaosTest, SigstopCForTwoSecondsThenSigcont) {
  RunAndJudge("SIGSTOP C for 2 s", kPause, [](LiveChain& chain, const SteadyLoad& load) -> Result<TimePoint> {
    chain.PauseC();
    Clock::Real().SleepUntil(load.fault_end(), {});
    chain.ResumeC();
    return Clock::Real().Now();
  });
}

TEST_F(ChaosTest, SlowCEveryAnswerTwoSecondsForThreeSeconds) {
  RunAndJudge("C slow (2 s per answer) for 3 s", kSlowFor,
              [](LiveChain& chain, const SteadyLoad&) -> Result<TimePoint> {
                if (Status s = chain.SlowC(kSlowAnswer, kSlowFor); !s.ok()) return s;
                // C opened the window when the request arrived: at the latest now.
                const TimePoint end = Clock::Real().Now() + kSlowFor;
                Clock::Real().SleepUntil(end, {});
                return end;
              });
}

}  // namespace
}  // namespace stormguard::demo::chaos
