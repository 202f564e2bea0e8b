#include "demo/metrics_server.h"

#include <string>

#include "stormguard/http/metrics_handler.h"

namespace stormguard::demo {

MetricsListener& DemoMetrics() {
  static MetricsListener* const metrics = new MetricsListener;  // pipelines may report until exit
  return *metrics;
}

Result<std::unique_ptr<MetricsServer>> MetricsServer::Start(const MetricsListener& metrics, int port) {
  std::unique_ptr<MetricsServer> s(new MetricsServer);
  s->server_.Get("/metrics", http::MetricsHandler(metrics));
  if (!s->server_.bind_to_port("127.0.0.1", port)) {
    return Status::Unavailable("--metrics-port: cannot listen on 127.0.0.1:" + std::to_string(port));
  }
  MetricsServer* raw = s.get();
  raw->thread_ = std::jthread([raw] { raw->server_.listen_after_bind(); });
  // stop() is a no-op until the accept loop runs: wait for it (bounded).
  for (int i = 0; i < 100000 && !raw->server_.is_running(); ++i) std::this_thread::yield();
  return s;
}

MetricsServer::~MetricsServer() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace stormguard::demo
