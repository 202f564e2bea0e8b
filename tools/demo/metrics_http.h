// tools/demo/metrics_http.h: the HTTP side of the demo's /metrics server
// (metrics_server.h): one connection's request head in, its answer out.
//
//   MetricsConnection c(fd, now + kConnectionTime);
//   c.OnReadable(metrics);  // reads; once the head is whole (or hostile), answers
//   c.OnWritable();         // sends; then closes its side and drains
//
// Thread safety: one thread at a time per connection.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::demo {

inline constexpr std::size_t kMaxRequestHead = 8 * 1024;

// The whole answer to a request head (ending in an empty line, or cut at
// kMaxRequestHead when `oversize`).
std::string AnswerTo(std::string_view head, bool oversize, const MetricsListener& metrics);

class MetricsConnection {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  enum class State { kReading, kWriting, kDraining, kDone };

  MetricsConnection(int fd, TimePoint deadline) : fd_(fd), deadline_(deadline) {}
  ~MetricsConnection();
  MetricsConnection(MetricsConnection&& other) noexcept;
  MetricsConnection& operator=(MetricsConnection&& other) noexcept;

  void OnReadable(const MetricsListener& metrics);
  void OnWritable();

  int fd() const noexcept { return fd_; }
  State state() const noexcept { return state_; }
  TimePoint deadline() const noexcept { return deadline_; }

 private:
  int fd_;
  TimePoint deadline_;
  State state_ = State::kReading;
  std::string in_;   // the request head so far
  std::string out_;  // the answer
  std::size_t sent_ = 0;
};

}  // namespace stormguard::demo
