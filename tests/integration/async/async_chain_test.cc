// The asynchronous HTTP client under the coroutine driver, against the
// demo's service C as a real child process on loopback. This process is the
// coroutine service: one thread runs one io_context, and each of 1,000
// concurrent calls is a coroutine doing `co_await pipeline.Execute(ctx,
// attempt)` with an AsyncCurlClient::Send as the attempt. The pipeline is
// the usual one for a downstream: overall timeout (the call's deadline),
// retry with a ratio budget of 10%, circuit breaker, bulkhead, attempt
// timeout. Phases:
//   up          C healthy: every call answers OK (C's own 1% transient
//               errors and 1% slow answers are retried);
//   down        C killed (-9): connection refused; the calls fail fast and
//               send at most 1.1 attempts per call;
//   recovering  C restarted on its port; small probe waves until the
//               breaker has closed again (a bounded loop);
//   recovered   every call answers OK again.
// In every phase each call ends by its deadline plus kSlack (the loop's
// scheduling of 1,000 completions on one thread). The figures are printed
// as a table.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <deque>

#include "async_wave.h"
#include "cli_process.h"
#include "demo/service_process.h"
#include "stormguard/guard/circuit_breaker.h"
#include "stormguard/retry/ratio_budget.h"

namespace stormguard::demo::async_chain {
namespace {
using namespace std::chrono_literals;

constexpr std::size_t kCalls = 1000;
// Room for 1,000 calls through one thread and a bulkhead of 128 on a
// loaded two-core machine under ASan (the last of them ends ~1.5 s in),
// with a retry after an attempt timeout.
constexpr Duration kDeadline = 4s;
// Cuts C's slow answers (1.2 s); the retry draws again.
constexpr Duration kAttemptTimeout = 1s;
constexpr Duration kSlack = 50ms;
// "Fail fast": a refused call waits for no timeout. The last of 1,000
// refused calls on one thread ends a few hundred ms in (more on a loaded
// machine); calls that each waited out a 1 s attempt timeout, 128 at a
// time in the bulkhead, would take 1 to 4 s.
constexpr Duration kFailFast = kDeadline / 2;
// The breaker stays open this long before it lets trial calls through.
constexpr Duration kWaitInOpen = 1s;
constexpr std::size_t kProbeCalls = 10;
constexpr Duration kProbeEvery = 100ms;
constexpr int kMaxProbes = 50;           // 5 s: far beyond kWaitInOpen
constexpr int kMaxLifetimeSeconds = 60;  // C never outlives a run by much

class AsyncChainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StartC(0);
    ASSERT_TRUE(c_) << "service C did not start";
    url_ = "http://127.0.0.1:" + std::to_string(port_) + "/stock";
    breaker_ = CircuitBreaker::Create({.window_size = 20,
                                       .minimum_number_of_calls = 20,
                                       .wait_in_open = kWaitInOpen,
                                       .permitted_calls_in_half_open = 5})
                   .value();
    auto budget = RatioBudget::Create({.min_retries_per_second = 0, .retry_ratio = 0.1}).value();
    auto pipeline = PipelineBuilder()
                        .AddTimeout(kDeadline)
                        .AddRetry({.max_attempts = 3, .backoff = {.base = 50ms}, .idempotent = true, .budget = budget})
                        .AddCircuitBreaker(breaker_)
                        .AddBulkhead({.max_concurrent = 128, .max_wait = kDeadline})  // the deadline ends a wait first
                        .AddAttemptTimeout(kAttemptTimeout)
                        .Build();
    ASSERT_TRUE(pipeline.ok()) << pipeline.status().ToString();
    pipeline_.emplace(std::move(pipeline).value());
    auto client = http::AsyncCurlClient::Create(io_, {});
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
  }

  // C stopped and reaped, the killed one too; nothing left behind.
  void TearDown() override {
    if (c_) c_->Stop();
    for (pid_t pid : pids_) EXPECT_NE(::kill(pid, 0), 0) << "service " << pid << " still runs";
    EXPECT_TRUE(testkit::ChildrenOf(::getpid()).empty());
  }

  // C on `port` (0: a free one). From the test's main thread: C dies with it.
  void StartC(int port) {
    std::vector<std::string> args = {"--role", "C",  "--mode",         "stormguard",
                                     "--seed", "11", "--max-lifetime", std::to_string(kMaxLifetimeSeconds)};
    if (port != 0) args.insert(args.end(), {"--port", std::to_string(port)});
    auto c = ServiceProcess::Start(STORMGUARD_CLI_PATH, args);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
    port_ = c_->port();
    pids_.push_back(c_->pid());
  }

  void KillC() {
    ::kill(c_->pid(), SIGKILL);
    c_->Stop();  // reaps it
  }

  const Wave& Run(const std::string& phase, std::size_t calls) {
    Wave& w = waves_.emplace_back(Wave{.shape = {.phase = phase, .url = url_, .calls = calls, .deadline = kDeadline}});
    RunWave(io_, *pipeline_, *client_, w);
    return w;
  }

  std::unique_ptr<ServiceProcess> c_;
  int port_ = 0;
  std::vector<pid_t> pids_;
  std::string url_;
  std::shared_ptr<CircuitBreaker> breaker_;
  std::optional<PipelineRef> pipeline_;
  // Outlives io_: a call a failed wave left behind still writes into its own.
  std::deque<Wave> waves_;
  asio::io_context io_;  // the client's exchanges end before it is destroyed
  std::unique_ptr<http::AsyncCurlClient> client_;
};

// Every call ended, and none after its deadline (plus the slack).
void ExpectAllAnsweredInTime(const WaveFigures& f, const std::string& table) {
  EXPECT_EQ(f.ended, f.calls) << f.phase << "\n" << table;
  EXPECT_LE(f.worst_lateness, kSlack) << f.phase << "\n" << table;
}

TEST_F(AsyncChainTest, ThousandCallsOnOneThreadWhileCGoesDownAndComesBack) {
  std::vector<WaveFigures> rows;
  const auto table = [&rows] { return FormatTable(rows); };

  rows.push_back(Tally(Run("up", kCalls)));
  KillC();
  rows.push_back(Tally(Run("down", kCalls)));
  EXPECT_EQ(breaker_->state(), CircuitState::kOpen) << table();

  StartC(port_);
  ASSERT_TRUE(c_);
  Wave probes{.shape = {.phase = "recovering", .deadline = kDeadline}};
  bool closed = false;
  for (int i = 0; i < kMaxProbes && !closed; ++i) {
    Clock::Real().SleepFor(kProbeEvery, {});
    const Wave& w = Run("recovering", kProbeCalls);
    Absorb(probes, w);
    closed = Tally(w).ok == kProbeCalls && breaker_->state() == CircuitState::kClosed;
  }
  rows.push_back(Tally(probes));
  rows.push_back(Tally(Run("recovered", kCalls)));

  const std::string figures = table();
  std::fputs(figures.c_str(), stdout);
  RecordProperty("figures", figures);

  ASSERT_EQ(rows.size(), 4u);
  const WaveFigures &up = rows[0], &down = rows[1], &recovering = rows[2], &recovered = rows[3];
  for (const WaveFigures& f : rows) ExpectAllAnsweredInTime(f, figures);
  EXPECT_EQ(up.ok, kCalls) << figures;
  EXPECT_EQ(down.ok, 0u) << figures;  // C was really down
  EXPECT_LE(down.amplification, 1.1) << figures;
  EXPECT_LE(down.max, kFailFast) << figures;
  EXPECT_TRUE(closed) << "the breaker let no call through within " << kMaxProbes << " probes\n" << figures;
  EXPECT_GT(recovering.calls, 0u) << figures;
  EXPECT_EQ(recovered.ok, kCalls) << figures;
}

}  // namespace
}  // namespace stormguard::demo::async_chain
