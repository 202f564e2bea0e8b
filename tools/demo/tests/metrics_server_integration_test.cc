// The demo's /metrics server (metrics_server.h) on loopback, against what a
// hostile or careless client does: hundreds of idle connections, a header
// of a megabyte, methods and versions it does not serve. Every socket read
// has a timeout, so a server that never answers fails the test.
#include "demo/metrics_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace stormguard::demo {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A connected loopback socket whose reads give up after 5 s.
int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const timeval limit{.tv_sec = 5, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads until the server closes (or 5 s pass without a byte).
std::string ReadToEnd(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

// Sends `request` on a new connection and returns the whole answer.
std::string Exchange(int port, const std::string& request) {
  const int fd = Connect(port);
  if (fd < 0) return "<no connection>";
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  std::string answer = ReadToEnd(fd);
  ::close(fd);
  return answer;
}

std::string StatusLine(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = MetricsServer::Start(metrics_, 0);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(s).value();
  }
  int port() const { return server_->port(); }

  MetricsListener metrics_;
  std::unique_ptr<MetricsServer> server_;
};

TEST_F(MetricsServerTest, AnswersAScrape) {
  const std::string answer = Exchange(port(), "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  EXPECT_EQ(StatusLine(answer), "HTTP/1.1 200 OK");
  EXPECT_NE(answer.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"), std::string::npos);
  EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos);
  const std::string head = Exchange(port(), "HEAD /metrics?x=1 HTTP/1.0\r\n\r\n");
  EXPECT_EQ(StatusLine(head), "HTTP/1.1 200 OK");
  EXPECT_TRUE(head.ends_with("\r\n\r\n")) << head;  // no body
}

// Idle connections hold no thread: with 500 open (past the bound of 256
// connections, so the oldest idle ones give way), a scrape is answered at
// once.
TEST_F(MetricsServerTest, FiveHundredIdleSocketsDoNotDelayAScrape) {
  std::vector<int> idle;
  for (int i = 0; i < 500; ++i) {
    const int fd = Connect(port());
    ASSERT_GE(fd, 0) << i;
    idle.push_back(fd);
  }
  const auto start = SteadyClock::now();
  const std::string answer = Exchange(port(), "GET /metrics HTTP/1.1\r\n\r\n");
  const auto took = SteadyClock::now() - start;
  for (const int fd : idle) ::close(fd);
  EXPECT_EQ(StatusLine(answer), "HTTP/1.1 200 OK");
  EXPECT_LT(took, milliseconds(1000));
  std::printf("a scrape beside 500 idle sockets took %.1f ms\n",
              std::chrono::duration<double, std::milli>(took).count());
}

TEST_F(MetricsServerTest, AConnectionThatSendsNothingIsClosedWithinItsTime) {
  const int fd = Connect(port());
  ASSERT_GE(fd, 0);
  const auto start = SteadyClock::now();
  EXPECT_EQ(ReadToEnd(fd), "");  // closed, not timed out by us (5 s)
  EXPECT_LT(SteadyClock::now() - start, milliseconds(3500));
  ::close(fd);
}

TEST_F(MetricsServerTest, EachMalformedRequestGetsItsStatusThenTheClose) {
  const std::string megabyte(std::size_t{1} << 20, 'a');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"GET /metrics HTTP/1.1\r\nX-Big: " + megabyte + "\r\n\r\n", "HTTP/1.1 431 Request Header Fields Too Large"},
      {"GET /" + megabyte, "HTTP/1.1 431 Request Header Fields Too Large"},
      {"BREW /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
      {"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"},
      {"GET /metrics HTTP/2.0\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"},
      {"GET /metrics HTTP/0.9\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"},
      {"GET /metrics FTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /metrics HTTP/1.1 x\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"G(T /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"\r\n\r\n", "HTTP/1.1 400 Bad Request"},
      {"GET /other HTTP/1.1\r\n\r\n", "HTTP/1.1 404 Not Found"},
  };
  for (const auto& [request, status] : cases) {
    const std::string answer = Exchange(port(), request);
    EXPECT_EQ(StatusLine(answer), status) << request.substr(0, 60);
    EXPECT_NE(answer.find("Connection: close\r\n"), std::string::npos) << request.substr(0, 60);
  }
  EXPECT_NE(Exchange(port(), "PUT /metrics HTTP/1.1\r\n\r\n").find("Allow: GET, HEAD\r\n"), std::string::npos);
}

}  // namespace
}  // namespace stormguard::demo
