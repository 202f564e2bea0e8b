// tools/demo/metrics_server.h: `stormguard demo --metrics-port N` serves
// the stormguard mode's metrics at http://127.0.0.1:N/metrics while it runs.
//
//   auto server = MetricsServer::Start(DemoMetrics(), 9464);   // stops when destroyed
//
// One thread polls every connection without blocking, so a connection that
// sends nothing holds no thread and delays no scrape. Bounds: a connection
// has 2 s from accept to send its request head and take the answer; at most
// 1024 are open (a new one closes the oldest still sending its head); a
// head is at most 8 KiB. Each request is answered, then the connection
// closed (a scrape is one request), with a status for hostile ones:
// a head over 8 KiB -> 431, a method other than GET or HEAD -> 405, a
// version other than HTTP/1.0 or 1.1 -> 505, a malformed request line ->
// 400, another path -> 404. (cpp-httplib 0.11.4, Debian's, gives each
// connection a pool thread until its keep-alive timeout, so 500 idle
// sockets queue a scrape for minutes, and it closes on those requests
// without a status; none of that is configurable.)
//
// DemoMetrics(): the listener of every pipeline the demo's registry builds
// (demo_config.h), one instance named "demo".
// Thread safety: Start and the destructor from one thread; the server's own
// thread answers scrapes.
#pragma once

#include <memory>
#include <stop_token>
#include <thread>

#include "stormguard/core/result.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::demo {

MetricsListener& DemoMetrics();

class MetricsServer {
 public:
  // Binds 127.0.0.1:port (loopback only; 0: a free port) and serves in the
  // background.
  static Result<std::unique_ptr<MetricsServer>> Start(const MetricsListener& metrics, int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const noexcept { return port_; }

 private:
  MetricsServer(const MetricsListener& metrics, int listener, int wake, int port);
  void Loop(const std::stop_token& stop);

  const MetricsListener& metrics_;
  int listener_;
  int wake_;  // an eventfd: the destructor's way into poll()
  int port_;
  std::jthread thread_;
};

}  // namespace stormguard::demo
