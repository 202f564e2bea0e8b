// A reload reaches every call of a running chain. The demo's three real
// services (A -> B -> C, stormguard mode, HTTP and gRPC) follow their
// policies from a real etcd, or from a file replaced by an atomic rename,
// while the test sends load to A. Then, as an operator would:
//   1. chaos at the bottom hop (B -> C) at error rate 1.0: calls fail, B
//      tried each 3 times;
//   2. max_attempts 3 -> 1 there: calls fail after 1 attempt;
//   3. garbage: refused, step 2 stays;
//   4. the source goes away (etcd killed, the file deleted) and comes back:
//      step 2 stays;
//   5. the original: calls succeed again.
// Each call's answer says what the bottom hop did (x-demo-attempts "1,3":
// A made 1 attempt, B 3), so every call is explained by the configuration
// in force before or after the change nearest it, or the test fails. Each
// valid change must show within 1 s of the write (the figures are printed);
// no service restarts. Over HTTP it runs once more against an etcd that
// wants a client certificate and a password.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "demo/service_process.h"
#include "etcd_process.h"
#include "sanitized.h"
#include "temp_dir.h"
#include "test_certificates.h"
#ifdef STORMGUARD_DEMO_HAS_GRPC
#include <grpcpp/grpcpp.h>

#include "demo.grpc.pb.h"
#endif

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;
using Steady = std::chrono::steady_clock;
using config_sources::testkit::EtcdProcess;

// Under a sanitizer every process of the chain runs several times slower:
// the test still explains every call there, with longer holds and a looser
// bound; the plain build holds the operator's 1 s.
using stormguard::testkit::kSanitized;
constexpr double kVisibleWithinMs = kSanitized ? 3000 : 1000;  // how soon a change must show
constexpr Duration kHold = kSanitized ? std::chrono::seconds(4) : std::chrono::milliseconds(1500);  // between changes
// A stalls for seconds now and then under TSan (hundreds of server threads).
constexpr auto kCallTimeout = kSanitized ? std::chrono::seconds(20) : std::chrono::seconds(3);

// The bottom hop retries (no retry budget, which would hide the attempts
// under full chaos) through an attempt timeout, then chaos at `chaos_rate`
// of kind "outcome": C is called and its answer becomes UNAVAILABLE, so the
// attempts show on the wire (an "error" chaos stage sends none).
std::string ChainConfig(double chaos_rate, int bottom_attempts) {
  return R"({"destinations": {
  "relay": {"pipeline": {"stages": [
    {"retry": {"max_attempts": 3, "backoff": {"kind": "exponential", "base": "5ms", "cap": "50ms", "jitter": "full"}}}]}},
  "bottom": {"pipeline": {"stages": [
    {"retry": {"max_attempts": )" +
         std::to_string(bottom_attempts) + R"(,
               "backoff": {"kind": "exponential", "base": "1ms", "cap": "10ms", "jitter": "full"}}},
    {"attempt_timeout": {"timeout": "200ms"}},
    {"chaos": {"kind": "outcome", "rate": )" +
         std::to_string(chaos_rate) + R"(}}]}},
  "inbound": {}}})";
}

// What a call's answer says about the bottom hop's configuration.
enum class Seen { kHealthy, kFailedAfter3, kFailedAfter1, kUnexplained };

const char* Name(Seen s) {
  switch (s) {
    case Seen::kHealthy: return "healthy";
    case Seen::kFailedAfter3: return "failed after 3";
    case Seen::kFailedAfter1: return "failed after 1";
    case Seen::kUnexplained: return "unexplained";
  }
  return "?";
}

struct CallRecord {
  Steady::time_point start, end;
  bool ok = false;
  std::string attempts;  // A's x-demo-attempts: "A,B"
  std::string answer;    // status and body, for a failure's message
};

Seen Classify(const CallRecord& r) {
  if (r.ok) return Seen::kHealthy;
  const auto comma = r.attempts.find(',');
  const std::string bottom = comma == std::string::npos ? "" : r.attempts.substr(comma + 1);
  if (bottom == "3") return Seen::kFailedAfter3;
  if (bottom == "1") return Seen::kFailedAfter1;
  return Seen::kUnexplained;
}

// A deadline's answer on either transport: gRPC's status name, or an HTTP
// 504 ("deadline already passed on arrival" when a hop stalled before it).
bool IsDeadlineAnswer(const std::string& answer) {
  return answer.find("DEADLINE_EXCEEDED") != std::string::npos || answer.rfind("504", 0) == 0;
}

// What a hop stalling looks like: a deadline's answer, or
// B's three attempts each running out their 200 ms attempt timeout (chaos
// fails an attempt in microseconds, so a failure after 3 that took 600 ms
// or more is C not answering in time, whatever the configuration).
bool LooksLikeAStall(const CallRecord& call) {
  return IsDeadlineAnswer(call.answer) || call.end - call.start >= 3 * std::chrono::milliseconds(200);
}

using OneCall = std::function<CallRecord()>;

// Threads calling A back to back (5 ms apart) until stopped.
class Load {
 public:
  Load(int threads, std::function<OneCall()> make_caller) {
    for (int i = 0; i < threads; ++i) {
      threads_.emplace_back([this, call = make_caller()] {
        std::vector<CallRecord> mine;
        while (!stop_.load() && mine.size() < 100'000) {
          mine.push_back(call());
          std::this_thread::sleep_for(5ms);
        }
        std::lock_guard lock(mu_);
        records_.insert(records_.end(), mine.begin(), mine.end());
      });
    }
  }
  std::vector<CallRecord> Stop() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    std::sort(records_.begin(), records_.end(), [](auto& a, auto& b) { return a.start < b.start; });
    return records_;
  }
  ~Load() {
    if (!threads_.empty()) Stop();
  }

 private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::vector<CallRecord> records_;
};

OneCall HttpCaller(int port) {
  auto client = std::make_shared<httplib::Client>("127.0.0.1", port);
  client->set_read_timeout(kCallTimeout);
  return [client] {
    CallRecord r{.start = Steady::now()};
    const httplib::Result res = client->Get("/stock");
    r.end = Steady::now();
    r.ok = res && res->status == 200;
    if (res) r.attempts = res->get_header_value("x-demo-attempts");
    r.answer = res ? std::to_string(res->status) + " " + res->body : httplib::to_string(res.error());
    return r;
  };
}

#ifdef STORMGUARD_DEMO_HAS_GRPC
OneCall GrpcCaller(int port) {
  std::shared_ptr<v1::Demo::Stub> stub =
      v1::Demo::NewStub(grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  return [stub] {
    CallRecord r{.start = Steady::now()};
    grpc::ClientContext c;
    c.set_deadline(std::chrono::system_clock::now() + kCallTimeout);
    v1::OpRequest request;
    request.set_op("reload");
    request.set_phase("reload");
    v1::OpReply reply;
    const grpc::Status s = stub->Operate(&c, request, &reply);
    r.ok = s.ok();
    r.answer = std::to_string(s.error_code()) + " " + s.error_message();
    r.end = Steady::now();
    const auto& trailers = c.GetServerTrailingMetadata();
    if (auto it = trailers.find("x-demo-attempts"); it != trailers.end()) {
      r.attempts.assign(it->second.data(), it->second.size());
    }
    return r;
  };
}
#endif

// One write an operator makes, and what the traffic should show after it.
struct Change {
  std::string what;
  Steady::time_point at;
  Seen expect;
  bool takes_effect;  // false: garbage or an outage, the last state stays
};

// Where the policies live, as the test writes them.
class PolicySource {
 public:
  virtual ~PolicySource() = default;
  virtual std::vector<std::string> ServiceArgs() const = 0;
  virtual void Write(const std::string& text) = 0;
  virtual void GoAway() = 0;  // etcd killed, the file deleted
  virtual void ComeBack() = 0;
};

class EtcdPolicy final : public PolicySource {
 public:
  enum class Security { kPlain, kTlsAndAuthentication };

  explicit EtcdPolicy(Security security = Security::kPlain) {
    if (security == Security::kPlain) {
      started_ = etcd_.Start();
      return;
    }
    // etcd over https with --client-cert-auth, and etcd authentication on:
    // the services present a client certificate and log in as "demo".
    if (!config_sources::testkit::MakeTestCertificates(dir_.path(), certs_)) return;
    etcd_.set_tls(
        {certs_.server_cert, certs_.server_key, certs_.ca, {certs_.ca, certs_.client_cert, certs_.client_key, ""}});
    password_file_ = dir_.path() + "/password";
    std::ofstream(password_file_) << "demo-secret\n";
    started_ = etcd_.Start() && etcd_.EnableAuth("demo", "demo-secret", "/demo/");
  }
  bool started() const { return started_; }
  std::vector<std::string> ServiceArgs() const override {
    std::vector<std::string> args = {"--etcd", etcd_.endpoint(), "--key", kKey};
    if (!password_file_.empty()) {
      args.insert(args.end(), {"--cacert", certs_.ca, "--cert", certs_.client_cert, "--cert-key", certs_.client_key,
                               "--user", "demo", "--password-file", password_file_});
    }
    return args;
  }
  void Write(const std::string& text) override { ASSERT_GT(etcd_.Put(kKey, text), 0); }
  void GoAway() override { etcd_.Kill(); }
  void ComeBack() override { ASSERT_TRUE(etcd_.Start()); }

 private:
  static constexpr const char* kKey = "/demo/policies";
  config_sources::testkit::TempDir dir_;
  config_sources::testkit::TestCertificates certs_;
  std::string password_file_;
  EtcdProcess etcd_;
  bool started_ = false;
};

class FilePolicy final : public PolicySource {
 public:
  std::vector<std::string> ServiceArgs() const override { return {"--config", dir_.File("policies.json")}; }
  // As an operator's deploy tool does: a temporary file renamed over the old one.
  void Write(const std::string& text) override {
    std::ofstream(dir_.File("policies.json.tmp"), std::ios::trunc) << text;
    std::filesystem::rename(dir_.File("policies.json.tmp"), dir_.File("policies.json"));
  }
  void GoAway() override { std::filesystem::remove(dir_.File("policies.json")); }
  void ComeBack() override {}  // the next Write brings it back

 private:
  config_sources::testkit::TempDir dir_;
};

struct Chain {
  std::vector<std::unique_ptr<ServiceProcess>> services;  // C, B, A
  int port() const { return services.back()->port(); }
};

Chain StartChain(const std::string& transport, const PolicySource& source) {
  Chain chain;
  int downstream = 0;
  for (const char* role : {"C", "B", "A"}) {
    std::vector<std::string> args = {"--role",      role,      "--mode",         "stormguard",
                                     "--transport", transport, "--max-lifetime", "120"};
    if (downstream != 0) args.insert(args.end(), {"--downstream", std::to_string(downstream)});
    for (const std::string& a : source.ServiceArgs()) args.push_back(a);
    auto s = ServiceProcess::Start(STORMGUARD_CLI_PATH, args);
    EXPECT_TRUE(s.ok()) << role << ": " << s.status().ToString();
    if (!s.ok()) return chain;
    downstream = (*s)->port();
    chain.services.push_back(std::move(s).value());
  }
  return chain;
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

// How long after each change that takes effect the traffic showed it: from
// the write to the start of the first call after which every call shows
// the new state. Every call must be explained by a configuration in force
// while it ran.
std::vector<double> CheckTraffic(const std::vector<CallRecord>& calls, const std::vector<Change>& changes,
                                 Steady::time_point end) {
  // The state in force after each change (index 0: before any).
  std::vector<Seen> state = {Seen::kHealthy};
  for (const Change& c : changes) state.push_back(c.takes_effect ? c.expect : state.back());
  const auto window_of = [&](Steady::time_point t) {
    std::size_t w = 0;
    while (w < changes.size() && changes[w].at <= t) ++w;
    return w;
  };
  // Every call shows the state in force while it ran, or the one before
  // (a change takes a moment to reach B; how long is checked below).
  // A process stalls now and then past an attempt's or A's budget, often
  // under a sanitizer and now and then on a loaded 2-core CI machine
  // (three services, four callers and the other test ctest runs beside
  // this one): such a failure says nothing about reloads, and 1% of the
  // calls may be one.
  std::size_t stalled = 0;
  for (const CallRecord& call : calls) {
    const Seen s = Classify(call);
    bool explained = false;
    const std::size_t first = window_of(call.start);
    for (std::size_t w = first == 0 ? 0 : first - 1; w <= window_of(call.end); ++w) explained |= state[w] == s;
    if (!explained && !call.ok && LooksLikeAStall(call) && ++stalled <= calls.size() / 100) continue;
    EXPECT_TRUE(explained) << "a call was " << Name(s) << " (attempts \"" << call.attempts << "\", " << call.answer
                           << ", " << std::chrono::duration<double, std::milli>(call.end - call.start).count()
                           << " ms), which no configuration in force while it ran explains";
  }
  if (stalled > 0) std::printf("%zu calls stalled past a budget (1%% may)\n", stalled);
  std::vector<double> visible_ms;
  for (std::size_t c = 0; c < changes.size(); ++c) {
    const Seen before = state[c], after = state[c + 1];
    const Steady::time_point until = c + 1 < changes.size() ? changes[c + 1].at : end;
    std::optional<Steady::time_point> first_new_after_old;
    std::size_t seen_new = 0;
    for (const CallRecord& call : calls) {
      if (call.start < changes[c].at || call.start >= until) continue;
      const Seen s = Classify(call);
      if (s == after) {
        ++seen_new;
        if (!first_new_after_old) first_new_after_old = call.start;
      } else if (s == before) {
        first_new_after_old.reset();
      }
    }
    EXPECT_GT(seen_new, 10u) << changes[c].what;
    if (!changes[c].takes_effect) continue;  // every call was checked to show the state before it
    if (!first_new_after_old) {
      ADD_FAILURE() << "\"" << changes[c].what << "\" never showed as " << Name(after);
      continue;
    }
    const double ms = std::chrono::duration<double, std::milli>(*first_new_after_old - changes[c].at).count();
    visible_ms.push_back(std::max(ms, 0.0));
    EXPECT_LE(ms, kVisibleWithinMs) << "\"" << changes[c].what << "\" showed only after " << ms << " ms";
  }
  return visible_ms;
}

void RunScenario(const std::string& transport, PolicySource& source, std::function<OneCall(int)> caller) {
  const std::string original = ChainConfig(0.0, 3);
  source.Write(original);
  Chain chain = StartChain(transport, source);
  ASSERT_EQ(chain.services.size(), 3u);
  std::vector<pid_t> pids;
  for (const auto& s : chain.services) pids.push_back(s->pid());

  std::vector<Change> changes;
  const auto change = [&](std::string what, Seen expect, bool takes_effect, auto&& write) {
    changes.push_back({std::move(what), Steady::now(), expect, takes_effect});
    write();
    std::this_thread::sleep_for(kHold);
  };
  Load load(4, [&] { return caller(chain.port()); });
  std::this_thread::sleep_for(1s);
  change("chaos at rate 1.0", Seen::kFailedAfter3, true, [&] { source.Write(ChainConfig(1.0, 3)); });
  change("max_attempts 1", Seen::kFailedAfter1, true, [&] { source.Write(ChainConfig(1.0, 1)); });
  change("garbage", Seen::kFailedAfter1, false, [&] { source.Write("{\"destinations\": {\"bottom\": 5"); });
  change("source gone", Seen::kFailedAfter1, false, [&] { source.GoAway(); });
  source.ComeBack();
  change("the original again", Seen::kHealthy, true, [&] { source.Write(original); });
  const Steady::time_point end = Steady::now();
  const std::vector<CallRecord> calls = load.Stop();

  const std::vector<double> visible = CheckTraffic(calls, changes, end);
  std::string figures;
  for (double ms : visible) figures += " " + std::to_string(static_cast<int>(ms)) + " ms";
  std::printf("reload visible in the traffic after:%s (%zu calls)\n", figures.c_str(), calls.size());
  for (std::size_t k = 0; k < pids.size(); ++k) {
    EXPECT_TRUE(Alive(pids[k])) << "service "
                                << "CBA"[k] << " is gone";
    EXPECT_EQ(chain.services[k]->pid(), pids[k]);
  }
}

TEST(ReloadChainIntegrationTest, EtcdChangesReachEveryHttpCall) {
  EtcdPolicy etcd;
  ASSERT_TRUE(etcd.started());
  RunScenario("http", etcd, HttpCaller);
}

TEST(ReloadChainIntegrationTest, EtcdOverTlsWithAuthenticationReachesEveryHttpCall) {
  EtcdPolicy etcd(EtcdPolicy::Security::kTlsAndAuthentication);
  ASSERT_TRUE(etcd.started()) << "etcd did not start with TLS and authentication (openssl: scripts/install-deps.sh)";
  RunScenario("http", etcd, HttpCaller);
}

TEST(ReloadChainIntegrationTest, RenamedFileReachesEveryHttpCall) {
  FilePolicy file;
  RunScenario("http", file, HttpCaller);
}

#ifdef STORMGUARD_DEMO_HAS_GRPC
TEST(ReloadChainIntegrationTest, EtcdChangesReachEveryGrpcCall) {
  EtcdPolicy etcd;
  ASSERT_TRUE(etcd.started());
  RunScenario("grpc", etcd, GrpcCaller);
}

TEST(ReloadChainIntegrationTest, RenamedFileReachesEveryGrpcCall) {
  FilePolicy file;
  RunScenario("grpc", file, GrpcCaller);
}
#endif

}  // namespace
}  // namespace stormguard::demo
