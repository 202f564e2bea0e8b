#include "demo/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "demo/metrics_http.h"
#include "stormguard/exec/timer_service.h"

namespace stormguard::demo {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Below the usual 1024 descriptors a process may open, with room for the
// demo's own.
constexpr std::size_t kMaxConnections = 256;
constexpr auto kConnectionTime = std::chrono::seconds(2);
constexpr int kAcceptsPerRound = 64;

void Serve(MetricsConnection& c, short revents, const MetricsListener& metrics) {
  if (revents == 0) return;
  if (c.state() == MetricsConnection::State::kWriting) {
    c.OnWritable();  // an error or hang-up shows as a failed send
  } else {
    c.OnReadable(metrics);  // ... or as a failed or empty read
  }
}

// Accepts what is waiting (a bounded number per round, so serving goes on
// under a flood); past the bound, a new connection closes the oldest one
// still sending its request head, since a scrape must not wait on idlers.
void Accept(int listener, std::vector<MetricsConnection>& conns, SteadyClock::time_point now) {
  for (int i = 0; i < kAcceptsPerRound; ++i) {
    const int fd = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // none left, or one gone before accept
    if (conns.size() >= kMaxConnections) {
      const auto oldest = std::find_if(conns.begin(), conns.end(), [](const MetricsConnection& c) {
        return c.state() == MetricsConnection::State::kReading;
      });
      if (oldest == conns.end()) {
        ::close(fd);
        continue;
      }
      conns.erase(oldest);
    }
    conns.emplace_back(fd, now + kConnectionTime);
  }
}

}  // namespace

MetricsListener& DemoMetrics() {
  static MetricsListener* const metrics = [] {
    auto* m = new MetricsListener;  // pipelines may report until exit
    m->Watch("timers", Watched::kTimerSlowCallbacks,
             [] { return static_cast<double>(TimerService::Default().slow_callbacks().count); });
    return m;
  }();
  return *metrics;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const MetricsListener& metrics, int port) {
  const auto refused = [port](int fd) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    return Status::Unavailable("--metrics-port: cannot listen on 127.0.0.1:" + std::to_string(port) + ": " + why);
  };
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return refused(fd);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, SOMAXCONN) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    return refused(fd);
  }
  const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake < 0) return refused(fd);
  std::unique_ptr<MetricsServer> s(new MetricsServer(metrics, fd, wake, ntohs(a.sin_port)));
  MetricsServer* raw = s.get();
  raw->thread_ = std::jthread([raw](std::stop_token stop) { raw->Loop(stop); });
  return s;
}

MetricsServer::MetricsServer(const MetricsListener& metrics, int listener, int wake, int port)
    : metrics_(metrics), listener_(listener), wake_(wake), port_(port) {}

MetricsServer::~MetricsServer() {
  thread_.request_stop();
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  ::close(listener_);
  ::close(wake_);
}

// Waits for the first of: a connection ready, a new one, a deadline, the
// destructor's wake-up; every connection past its deadline is closed.
void MetricsServer::Loop(const std::stop_token& stop) {
  std::vector<MetricsConnection> conns;
  std::vector<pollfd> fds;
  while (!stop.stop_requested()) {
    fds.assign({{listener_, POLLIN, 0}, {wake_, POLLIN, 0}});
    SteadyClock::time_point next = SteadyClock::now() + std::chrono::seconds(1);
    for (const MetricsConnection& c : conns) {
      const bool writing = c.state() == MetricsConnection::State::kWriting;
      fds.push_back({c.fd(), static_cast<short>(writing ? POLLOUT : POLLIN), 0});
      next = std::min(next, c.deadline());
    }
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - SteadyClock::now()).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<std::int64_t>(wait, 0, 1000))) < 0 &&
        errno != EINTR) {
      return;
    }
    if (fds[1].revents != 0) return;  // the destructor
    for (std::size_t i = 0; i < conns.size(); ++i) Serve(conns[i], fds[i + 2].revents, metrics_);
    const SteadyClock::time_point now = SteadyClock::now();
    std::erase_if(conns, [now](const MetricsConnection& c) {
      return c.state() == MetricsConnection::State::kDone || now >= c.deadline();
    });
    if ((fds[0].revents & POLLIN) != 0) Accept(listener_, conns, now);
  }
}

}  // namespace stormguard::demo
