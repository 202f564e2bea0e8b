// tools/demo/metrics_server.h: `stormguard demo --metrics-port N` serves
// the stormguard mode's metrics at http://127.0.0.1:N/metrics while it runs.
//
//   auto server = MetricsServer::Start(DemoMetrics(), 9464);   // stops when destroyed
//
// DemoMetrics(): the listener of every pipeline the demo's registry builds
// (demo_config.h), one instance named "demo".
// Thread safety: Start and the destructor from one thread; the server's own
// threads answer scrapes.
#pragma once

#include <httplib.h>

#include <memory>
#include <thread>

#include "stormguard/core/result.h"
#include "stormguard/metrics/metrics_listener.h"

namespace stormguard::demo {

MetricsListener& DemoMetrics();

class MetricsServer {
 public:
  // Binds 127.0.0.1:port (loopback only) and serves in the background.
  static Result<std::unique_ptr<MetricsServer>> Start(const MetricsListener& metrics, int port);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

 private:
  MetricsServer() = default;
  httplib::Server server_;
  std::jthread thread_;
};

}  // namespace stormguard::demo
