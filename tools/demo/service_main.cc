#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "demo/demo_config.h"
#include "demo/service.h"
#include "stormguard/http/server_tuning.h"

namespace stormguard::demo {
namespace {

// Enough workers for every request a naive storm keeps in flight at once
// (about 130 at 50 rps); keep-alive is off so idle connections hold none.
// The backlog holds a burst of retries (the rest as the tuning's defaults).
constexpr http::ServerTuning kTuning{.listen_backlog = 1024, .workers = 256, .keep_alive_max_count = 1};

}  // namespace

Result<std::unique_ptr<LiveConfig>> FollowConfig(const ServiceOptions& options) {
  Result<std::unique_ptr<LiveConfig>> live = LiveConfig::Start(options.config, DemoRegistry());
  if (!live.ok()) {
    std::fprintf(stderr, "stormguard demo-service %c: %s\n", options.role, live.status().ToString().c_str());
  }
  return live;
}

int RunService(const ServiceOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);  // a caller that gave up closes its socket first
  ::alarm(static_cast<unsigned>(std::chrono::ceil<std::chrono::seconds>(options.max_lifetime).count()));
  const Result<std::unique_ptr<LiveConfig>> live = FollowConfig(options);
  if (!live.ok()) return 2;
  std::unique_ptr<Service> service = options.role == 'C' ? MakeBottomService(options) : MakeRelayService(options);
  httplib::Server server;
  service->Install(server);
  const Result<int> port = http::TuneAndBind(server, kTuning, "127.0.0.1", options.port);
  if (!port.ok()) {
    std::fprintf(stderr, "stormguard demo-service %c: %s\n", options.role, port.status().ToString().c_str());
    return 1;
  }
  std::printf("port %d\n", *port);
  std::fflush(stdout);
  server.listen_after_bind();
  return 0;
}

}  // namespace stormguard::demo
