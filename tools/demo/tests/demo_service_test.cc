// Service C of the demo as a real process on loopback, driven over HTTP:
// the chain protocol holds across process boundaries.
#include <gtest/gtest.h>

#include <thread>

#include "cli_process.h"
#include "demo/bottom_ledger.h"
#include "demo/service_process.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/curl_transport.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

class BottomServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = ServiceProcess::Start(STORMGUARD_CLI_PATH, {"--role", "C", "--mode", "stormguard", "--seed", "7",
                                                         "--outage-phase", "down", "--max-lifetime", "60"});
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    c_ = std::move(c).value();
  }

  Result<http::HttpResponse> Send(const std::string& method, const std::string& path, http::HeaderList headers,
                                  const std::string& key = "") {
    const TimePoint now = Clock::Real().Now();
    return http::PerformOnce({.method = method,
                              .url = "http://127.0.0.1:" + std::to_string(c_->port()) + path,
                              .headers = std::move(headers),
                              .body = method == "POST" ? "{}" : ""},
                             key.empty() ? http::HeaderList{} : http::HeaderList{{"Idempotency-Key", key}},
                             // generous: under TSan beside another test, an answer
                             // of C's has taken over 5 s
                             {Deadline::After(now, 20s), 5s, now}, {});
  }

  BottomCounts Ledger() {
    auto r = Send("GET", "/admin/stats", {});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    return BottomSnapshotFromJson(nlohmann::json::parse(r->body)).phases["t"];
  }

  std::unique_ptr<ServiceProcess> c_;
};

TEST_F(BottomServiceTest, ExpiredRequestIsCountedButNeverWorkedOn) {
  auto r = Send("POST", "/charge", {{"x-demo-op", "1"}, {"x-demo-phase", "t"}, {"x-request-timeout-ms", "0"}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 504);
  EXPECT_EQ(r->Header("x-no-retry"), "1");
  const BottomCounts c = Ledger();
  EXPECT_EQ(c.reached, 1u);
  EXPECT_EQ(c.completed, 0u);
  EXPECT_EQ(c.effects, 0u);
}

// Values that are not a decimal count of milliseconds are ignored (the
// server's default budget applies), huge ones are clamped to its largest
// budget, and only a budget of zero is expired on arrival. The requests
// that reach the work get 200: seed 7 draws no fault for the first few.
TEST_F(BottomServiceTest, HostileTimeoutHeadersGetTheAnswerTheirValueMeans) {
  const std::pair<const char*, int> cases[] = {
      {"99999999999999999999999", 200}, {"-5", 200}, {"abc", 200}, {"1e9", 200}, {"0x10", 200},
      {"9223372036854775807", 200},     {"", 200},   {"0", 504},   {"00", 504},  {" 0 ", 504}};
  int worked = 0;
  for (const auto& [value, status] : cases) {
    auto r = Send("GET", "/stock", {{"x-demo-phase", "t"}, {"x-request-timeout-ms", value}});
    ASSERT_TRUE(r.ok()) << value << ": " << r.status().ToString();
    EXPECT_EQ(r->status, status) << "'" << value << "'";
    worked += status == 200 ? 1 : 0;
  }
  const BottomCounts c = Ledger();
  EXPECT_EQ(c.reached, std::size(cases));
  EXPECT_EQ(c.completed, static_cast<std::uint64_t>(worked));
}

TEST_F(BottomServiceTest, ChargeRepeatedWithOneKeyTakesEffectOnce) {
  for (int i = 0; i < 4; ++i) {
    auto r = Send("POST", "/charge", {{"x-demo-op", "42"}, {"x-demo-phase", "t"}}, "charge-42");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  const BottomCounts c = Ledger();
  EXPECT_EQ(c.reached, 4u);
  EXPECT_EQ(c.effects, 1u);
  EXPECT_EQ(c.duplicate_effects, 0u);
}

TEST_F(BottomServiceTest, OperationsOfTheOutageGet503AtOnceAndNoWork) {
  for (int i = 0; i < 5; ++i) {
    auto r =
        Send("POST", "/charge", {{"x-demo-op", std::to_string(i)}, {"x-demo-phase", "down"}}, "k" + std::to_string(i));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status, 503);
  }
  auto r = Send("GET", "/admin/stats", {});
  ASSERT_TRUE(r.ok());
  const BottomCounts down = BottomSnapshotFromJson(nlohmann::json::parse(r->body)).phases["down"];
  EXPECT_EQ(down.reached, 5u);
  EXPECT_EQ(down.completed, 0u);
  EXPECT_EQ(down.effects, 0u);
}

TEST_F(BottomServiceTest, SlowWindowMakesWorkStopAtTheDeadlineUndone) {
  auto open = Send("POST", "/admin/slow?delay_ms=2000&for_ms=10000", {});
  ASSERT_TRUE(open.ok()) << open.status().ToString();
  ASSERT_EQ(open->status, 200) << open->body;
  const TimePoint sent = Clock::Real().Now();
  auto r = Send("POST", "/charge", {{"x-demo-op", "1"}, {"x-demo-phase", "t"}, {"x-request-timeout-ms", "100"}}, "k1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 504);
  EXPECT_LT(Clock::Real().Now() - sent, 1s);  // the deadline, not the 2 s of work
  const BottomCounts c = Ledger();
  EXPECT_EQ(c.completed, 0u);
  EXPECT_EQ(c.effects, 0u);
}

TEST_F(BottomServiceTest, BadSlowWindowIsRefusedNamingTheField) {
  auto r = Send("POST", "/admin/slow?delay_ms=2000&for_ms=1e9", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("for_ms"), std::string::npos) << r->body;
  auto work = Send("GET", "/stock", {{"x-demo-phase", "t"}, {"x-request-timeout-ms", "100"}});
  ASSERT_TRUE(work.ok()) << work.status().ToString();
  EXPECT_NE(work->status, 504);  // no window was opened
}

TEST(DemoServiceTest, RestartedServiceListensOnTheSamePort) {
  const std::vector<std::string> args = {"--role", "C", "--mode", "stormguard", "--max-lifetime", "60"};
  auto first = ServiceProcess::Start(STORMGUARD_CLI_PATH, args);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const int port = (*first)->port();
  ::kill((*first)->pid(), SIGKILL);
  (*first)->Stop();
  std::vector<std::string> again = args;
  again.insert(again.end(), {"--port", std::to_string(port)});
  auto second = ServiceProcess::Start(STORMGUARD_CLI_PATH, again);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*second)->port(), port);
}

// 'Z' once it has exited (this process has not reaped it), 0 when gone.
char ProcessState(pid_t pid) {
  const std::string stat = testkit::ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? 0 : stat[close + 2];
}

bool AwaitState(pid_t pid, char state, std::chrono::milliseconds limit) {
  const TimePoint until = Clock::Real().Now() + limit;
  while (ProcessState(pid) != state && Clock::Real().Now() < until) std::this_thread::sleep_for(10ms);
  return ProcessState(pid) == state;
}

TEST(DemoServiceTest, EvenAStoppedServiceDiesWithTheThreadThatStartedIt) {
  // A chaos test that dies while C is SIGSTOPped must not leave C behind:
  // a stopped process holds a SIGTERM pending until it is continued.
  std::unique_ptr<ServiceProcess> service;
  std::thread([&service] {
    auto s =
        ServiceProcess::Start(STORMGUARD_CLI_PATH, {"--role", "C", "--mode", "stormguard", "--max-lifetime", "60"});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    service = std::move(s).value();
    ::kill(service->pid(), SIGSTOP);
    EXPECT_TRUE(AwaitState(service->pid(), 'T', 5s));
  }).join();  // the starting thread ends, without stopping its child
  ASSERT_TRUE(service);
  EXPECT_TRUE(AwaitState(service->pid(), 'Z', 5s)) << ProcessState(service->pid());
  ::kill(service->pid(), SIGKILL);  // even when the test failed
}

TEST_F(BottomServiceTest, StopReapsTheProcess) {
  const pid_t pid = c_->pid();
  c_->Stop();
  EXPECT_NE(::kill(pid, 0), 0);
}

}  // namespace
}  // namespace stormguard::demo
