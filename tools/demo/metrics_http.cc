#include "demo/metrics_http.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace stormguard::demo {
namespace {

std::string Response(int code, std::string_view reason, std::string_view headers, std::string_view type,
                     std::string_view body, bool head_only = false) {
  std::string out = "HTTP/1.1 " + std::to_string(code) + " " + std::string(reason) + "\r\n";
  out += "Content-Type: " + std::string(type) + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  out += std::string(headers) + "Connection: close\r\n\r\n";
  if (!head_only) out += body;
  return out;
}

std::string Refusal(int code, std::string_view reason, std::string_view headers = "") {
  return Response(code, reason, headers, "text/plain; charset=utf-8", std::string(reason) + "\n");
}

// RFC 9110's token characters, the only ones a method may have.
bool Token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace

std::string AnswerTo(std::string_view head, bool oversize, const MetricsListener& metrics) {
  if (oversize) return Refusal(431, "Request Header Fields Too Large");
  const std::string_view line = head.substr(0, head.find("\r\n"));
  const std::size_t a = line.find(' ');
  const std::size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
  if (b == std::string_view::npos || line.find(' ', b + 1) != std::string_view::npos) {
    return Refusal(400, "Bad Request");
  }
  const std::string_view method = line.substr(0, a), target = line.substr(a + 1, b - a - 1);
  const std::string_view version = line.substr(b + 1);
  if (!version.starts_with("HTTP/") || !Token(method) || target.empty()) return Refusal(400, "Bad Request");
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return Refusal(505, "HTTP Version Not Supported");
  if (method != "GET" && method != "HEAD") return Refusal(405, "Method Not Allowed", "Allow: GET, HEAD\r\n");
  if (target.substr(0, target.find('?')) != "/metrics") return Refusal(404, "Not Found");
  return Response(200, "OK", "", MetricsListener::kContentType, metrics.Scrape(), method == "HEAD");
}

MetricsConnection::~MetricsConnection() {
  if (fd_ >= 0) ::close(fd_);
}

MetricsConnection::MetricsConnection(MetricsConnection&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      deadline_(other.deadline_),
      state_(other.state_),
      in_(std::move(other.in_)),
      out_(std::move(other.out_)),
      sent_(other.sent_) {}

MetricsConnection& MetricsConnection::operator=(MetricsConnection&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    deadline_ = other.deadline_;
    state_ = other.state_;
    in_ = std::move(other.in_);
    out_ = std::move(other.out_);
    sent_ = other.sent_;
  }
  return *this;
}

// Reads at most 64 KiB a call, so one fast sender cannot keep the loop.
void MetricsConnection::OnReadable(const MetricsListener& metrics) {
  char buf[4096];
  for (int i = 0; i < 16; ++i) {
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // the peer closed, or the connection failed
      state_ = State::kDone;
      return;
    }
    if (state_ == State::kDraining) continue;
    in_.append(buf, static_cast<std::size_t>(n));
    const std::size_t end = in_.find("\r\n\r\n");
    const bool oversize = (end == std::string::npos ? in_.size() : end + 4) > kMaxRequestHead;
    if (end == std::string::npos && !oversize) continue;
    out_ = AnswerTo(std::string_view(in_).substr(0, oversize ? kMaxRequestHead : end + 4), oversize, metrics);
    in_ = std::string();
    state_ = State::kWriting;
    OnWritable();
    return;
  }
}

// Once the answer is out, closes the sending side and reads until the
// client closes: unread bytes would turn the close into a reset, which can
// destroy the answer before the client reads it.
void MetricsConnection::OnWritable() {
  while (sent_ < out_.size()) {
    const ssize_t n = ::send(fd_, out_.data() + sent_, out_.size() - sent_, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      state_ = State::kDone;
      return;
    }
    sent_ += static_cast<std::size_t>(n);
  }
  ::shutdown(fd_, SHUT_WR);
  out_ = std::string();
  state_ = State::kDraining;
}

}  // namespace stormguard::demo
