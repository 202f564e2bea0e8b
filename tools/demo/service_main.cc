#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>

#include "demo/service.h"

namespace stormguard::demo {
namespace {

// Enough workers for every request a naive storm keeps in flight at once
// (about 130 at 50 rps); keep-alive is off so idle connections hold none.
constexpr std::size_t kWorkers = 256;
// cpp-httplib listens with a backlog of 5: bursts of retries would overflow
// it and wait a second for SYN retransmission.
constexpr int kListenBacklog = 1024;

}  // namespace

int RunService(const ServiceOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);  // a caller that gave up closes its socket first
  ::alarm(static_cast<unsigned>(std::chrono::ceil<std::chrono::seconds>(options.max_lifetime).count()));
  std::unique_ptr<Service> service =
      options.role == 'C' ? MakeBottomService(options) : MakeRelayService(options);
  httplib::Server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  server.set_keep_alive_max_count(1);
  int listener = -1;
  server.set_socket_options([&listener](socket_t sock) {
    httplib::default_socket_options(sock);
    listener = sock;
  });
  service->Install(server);
  const int port = options.port == 0 ? server.bind_to_any_port("127.0.0.1")
                                     : (server.bind_to_port("127.0.0.1", options.port) ? options.port : -1);
  if (port <= 0 || listener < 0) {
    std::fprintf(stderr, "stormguard demo-service %c: cannot bind 127.0.0.1:%d\n", options.role, options.port);
    return 1;
  }
  ::listen(listener, kListenBacklog);  // Linux: a second listen() resizes the backlog
  std::printf("port %d\n", port);
  std::fflush(stdout);
  server.listen_after_bind();
  return 0;
}

}  // namespace stormguard::demo
