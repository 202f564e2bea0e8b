#include "stormguard/http/server_tuning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace stormguard::http {
namespace {
using namespace std::chrono_literals;
using ::testing::HasSubstr;

// A tuned server on a loopback port, serving on its own thread until destroyed.
class TunedTestServer {
 public:
  void Start(const ServerTuning& tuning) {
    Result<int> port = TuneAndBind(server, tuning, "127.0.0.1");
    ASSERT_TRUE(port.ok()) << port.status().ToString();
    port_ = *port;
    thread_ = std::thread([this] { server.listen_after_bind(); });
    for (int i = 0; i < 100000 && !server.is_running(); ++i) std::this_thread::yield();
  }
  ~TunedTestServer() {
    server.stop();
    if (thread_.joinable()) thread_.join();
  }
  int port() const { return port_; }
  httplib::Client Client() const { return httplib::Client("127.0.0.1", port_); }

  httplib::Server server;

 private:
  int port_ = 0;
  std::thread thread_;
};

int LocalPort(int fd, bool& connected) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET) return -1;
  sockaddr_in peer{};
  socklen_t peer_len = sizeof peer;
  connected = ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_len) == 0;
  return ntohs(a.sin_port);
}

// TCP_NODELAY of each connection this process accepted on `port`.
std::vector<int> NoDelayOfAccepted(int port) {
  std::vector<int> out;
  for (int fd = 0; fd < 4096; ++fd) {
    bool connected = false;
    if (LocalPort(fd, connected) != port || !connected) continue;
    int on = -1;
    socklen_t len = sizeof on;
    if (::getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &len) == 0) out.push_back(on);
  }
  return out;
}

std::vector<int> NoDelayAfterOneKeptAliveRequest(const ServerTuning& tuning) {
  TunedTestServer s;
  s.server.Get("/x", [](const httplib::Request&, httplib::Response& res) { res.set_content("x", "text/plain"); });
  s.Start(tuning);
  httplib::Client cli = s.Client();
  cli.set_keep_alive(true);  // the accepted connection stays open while we look
  auto res = cli.Get("/x");
  EXPECT_TRUE(res && res->status == 200);
  return NoDelayOfAccepted(s.port());
}

TEST(ServerTuningTest, AcceptedConnectionsHaveNagleOff) {
  EXPECT_THAT(NoDelayAfterOneKeptAliveRequest({}), ::testing::ElementsAre(::testing::Ne(0)));
  EXPECT_THAT(NoDelayAfterOneKeptAliveRequest({.tcp_nodelay = false}), ::testing::ElementsAre(0));
}

// Connections the kernel completes for a server that binds but never accepts.
int CompletedConnections(int port, int n) {
  std::vector<pollfd> fds;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<std::uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int i = 0; i < n; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to);
    fds.push_back({.fd = fd, .events = POLLOUT, .revents = 0});
  }
  int done = 0;
  // On loopback a queued connection completes at once; one refused by a full
  // queue waits a second for its SYN to be sent again. A completed one is
  // taken out of the poll (a negative fd is skipped) so the rest are waited for.
  for (int round = 0; round < 50 && done < n; ++round) {
    ::poll(fds.data(), fds.size(), 10);
    for (pollfd& p : fds) {
      if (p.fd < 0 || (p.revents & POLLOUT) == 0) continue;
      ++done;
      ::close(p.fd);
      p.fd = -1;
    }
  }
  for (const pollfd& p : fds) {
    if (p.fd >= 0) ::close(p.fd);
  }
  return done;
}

TEST(ServerTuningTest, TheListenBacklogIsTheTunedOne) {
  httplib::Server server;
  Result<int> port = TuneAndBind(server, {.listen_backlog = 64}, "127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status().ToString();
  // cpp-httplib's own backlog (5) queues 6 of them.
  EXPECT_EQ(CompletedConnections(*port, 20), 20);
}

TEST(ServerTuningTest, WorkersServeThatManyRequestsAtOnce) {
  constexpr int kWorkers = 12;  // more than cpp-httplib's max(8, cores - 1) here
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0;
  bool all_at_once = false;
  TunedTestServer s;
  s.server.Get("/x", [&](const httplib::Request&, httplib::Response& res) {
    std::unique_lock lock(mu);
    if (++inside == kWorkers) all_at_once = true;
    cv.notify_all();
    cv.wait_for(lock, 5s, [&] { return all_at_once; });  // bounded if workers are missing
    res.status = all_at_once ? 200 : 503;
  });
  s.Start({.workers = kWorkers});
  std::vector<std::future<int>> calls;
  for (int i = 0; i < kWorkers; ++i) {
    calls.push_back(std::async(std::launch::async, [&] {
      auto res = s.Client().Get("/x");
      return res ? res->status : 0;
    }));
  }
  for (auto& c : calls) EXPECT_EQ(c.get(), 200);
}

TEST(ServerTuningTest, KeepAliveCountAndTimeoutAreAnnouncedAndKept) {
  TunedTestServer s;
  s.server.Get("/x", [](const httplib::Request&, httplib::Response& res) { res.set_content("x", "text/plain"); });
  s.Start({.keep_alive_max_count = 2, .keep_alive_timeout = 7s});
  httplib::Client cli = s.Client();
  cli.set_keep_alive(true);
  auto first = cli.Get("/x");
  auto second = cli.Get("/x");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->get_header_value("Keep-Alive"), "timeout=7, max=2");
  EXPECT_EQ(second->get_header_value("Connection"), "close");  // the second of two
}

TEST(ServerTuningTest, ABodyOverTheLimitIsRefused) {
  TunedTestServer s;
  s.server.Post("/x", [](const httplib::Request&, httplib::Response& res) { res.status = 200; });
  s.Start({.max_request_bytes = 10});
  auto res = s.Client().Post("/x", std::string(100, 'x'), "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 413);
}

TEST(ServerTuningTest, InvalidTuningNamesEveryField) {
  httplib::Server server;
  const ServerTuning bad{.listen_backlog = 0,
                         .workers = 5000,
                         .keep_alive_max_count = 0,
                         .keep_alive_timeout = 1500ms,
                         .read_timeout = 0ms,
                         .write_timeout = 2h,
                         .max_request_bytes = 0};
  Result<int> r = TuneAndBind(server, bad, "127.0.0.1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  for (const char* e : {"listen_backlog: must be in [1, 65535]", "workers: must be in [1, 4096]",
                        "keep_alive_max_count: must be in [1, 1000000]",
                        "keep_alive_timeout: must be whole seconds in [1s, 1h]", "read_timeout: must be in (0, 1h]",
                        "write_timeout: must be in (0, 1h]", "max_request_bytes: must be in [1, 1 GiB]"}) {
    EXPECT_THAT(r.status().message(), HasSubstr(e));
  }
  Result<int> port = TuneAndBind(server, {}, "127.0.0.1", 70000);
  ASSERT_FALSE(port.ok());
  EXPECT_THAT(port.status().message(), HasSubstr("port: must be in [0, 65535]"));
}

}  // namespace
}  // namespace stormguard::http
