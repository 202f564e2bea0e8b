#include "live_chain.h"

#include <signal.h>

#include <string>

#include "demo/ledger_query.h"
#include "stormguard/core/clock.h"
#include "stormguard/http/curl_transport.h"

namespace stormguard::demo::chaos {
namespace {
using namespace std::chrono_literals;

// Far beyond any scenario, so a service outlives no test run by much.
constexpr int kMaxLifetimeSeconds = 60;
// C finishing the slow work of a fault after the load has ended.
constexpr Duration kDrainLimit = 3s;

}  // namespace

Result<std::unique_ptr<LiveChain>> LiveChain::Start(std::uint64_t seed) {
  std::unique_ptr<LiveChain> chain(new LiveChain());
  chain->seed_ = seed;
  auto c = chain->StartService("C", 0);
  if (!c.ok()) return c.status();
  chain->c_ = std::move(c).value();
  auto b = chain->StartService("B", chain->c_->port());
  if (!b.ok()) return b.status();
  chain->b_ = std::move(b).value();
  chain->b_port_ = chain->b_->port();
  auto a = chain->StartService("A", chain->b_port_);
  if (!a.ok()) return a.status();
  chain->a_ = std::move(a).value();
  return chain;
}

LiveChain::~LiveChain() { Stop(); }

Result<std::unique_ptr<ServiceProcess>> LiveChain::StartService(const char* role, int downstream, int port) {
  std::vector<std::string> args = {"--role",         role,
                                   "--mode",         "stormguard",
                                   "--seed",         std::to_string(seed_),
                                   "--max-lifetime", std::to_string(kMaxLifetimeSeconds)};
  if (downstream != 0) args.insert(args.end(), {"--downstream", std::to_string(downstream)});
  if (port != 0) args.insert(args.end(), {"--port", std::to_string(port)});
  auto s = ServiceProcess::Start(STORMGUARD_CLI_PATH, args);
  if (!s.ok()) return Status::Unavailable(std::string("service ") + role + ": " + s.status().ToString());
  pids_.push_back((*s)->pid());
  return s;
}

void LiveChain::KillB() {
  ::kill(b_->pid(), SIGKILL);
  b_->Stop();  // reaps it
}

Status LiveChain::RestartB() {
  auto b = StartService("B", c_->port(), b_port_);
  if (!b.ok()) return b.status();
  b_ = std::move(b).value();
  return Status::Ok();
}

void LiveChain::PauseC() {
  c_paused_ = true;
  ::kill(c_->pid(), SIGSTOP);
}

void LiveChain::ResumeC() {
  ::kill(c_->pid(), SIGCONT);
  c_paused_ = false;
}

Status LiveChain::SlowC(Duration delay, Duration length) {
  const auto ms = [](Duration d) { return std::to_string(std::chrono::ceil<std::chrono::milliseconds>(d).count()); };
  const std::string url =
      "http://127.0.0.1:" + std::to_string(c_->port()) + "/admin/slow?delay_ms=" + ms(delay) + "&for_ms=" + ms(length);
  const TimePoint now = Clock::Real().Now();
  Result<http::HttpResponse> r =
      http::PerformOnce({.method = "POST", .url = url}, {}, {Deadline::After(now, 2s), 1s, now}, {});
  if (!r.ok()) return r.status();
  if (r->status != 200) return Status::Internal(url + " answered " + std::to_string(r->status) + ": " + r->body);
  return Status::Ok();
}

Result<BottomSnapshot> LiveChain::SettledLedger() const { return ReadSettledLedger(c_->port(), kDrainLimit); }

void LiveChain::Stop() {
  if (c_paused_) ResumeC();  // a stopped process would hold its SIGTERM
  for (auto* s : {&a_, &b_, &c_}) {
    if (*s) (*s)->Stop();
  }
}

}  // namespace stormguard::demo::chaos
