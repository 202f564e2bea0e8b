// stormguard/http/server_tuning.h: a cpp-httplib server set up for real traffic.
//
// cpp-httplib as Debian ships it leaves Nagle's algorithm on, listens with a
// backlog of 5, serves with max(8, cores - 1) threads and closes a
// keep-alive connection after 5 requests. Nagle alone costs a keep-alive
// caller tens of milliseconds per request: the server writes its answer in
// two pieces and the second waits for the client's delayed ACK (measured
// with wrk: 150 requests/s at 26 ms each, against 21,500 requests/s at
// 0.14 ms with no-delay). TuneAndBind applies every setting below and binds:
//
//   httplib::Server http;
//   http.Get("/stock", middleware->Wrap(handler));
//   Result<int> port = stormguard::http::TuneAndBind(http, {.workers = 32}, "127.0.0.1", 8081);
//   if (!port.ok()) die(port.status());  // names every bad field
//   http.listen_after_bind();            // serves until http.stop()
//
// Thread safety: call before the server listens, from one thread.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "stormguard/core/clock.h"
#include "stormguard/core/result.h"

namespace stormguard::http {

struct ServerTuning {
  // TCP_NODELAY on every accepted connection (inherited from the listening
  // socket): an answer goes out at once instead of after the peer's ACK.
  bool tcp_nodelay = true;
  // Connections the kernel queues before accept, 1..65535 (capped by
  // net.core.somaxconn). A burst of retries overflowing a short queue waits
  // a whole second for the SYN to be sent again.
  int listen_backlog = 1024;
  // Threads serving requests, 1..4096. A blocking handler holds one for its
  // whole run, downstream calls included: size it for the requests in
  // flight at peak, not for the cores.
  int workers = 64;
  // Requests served on one connection before it closes, 1..1,000,000 (1:
  // no keep-alive); and how long an idle one stays open, whole seconds,
  // 1s..1h (cpp-httplib counts in seconds).
  int keep_alive_max_count = 1000;
  Duration keep_alive_timeout = std::chrono::seconds(5);
  // How long reading one request and writing one answer may take, (0, 1h]:
  // a peer that sends or reads too slowly loses its connection instead of
  // holding a worker.
  Duration read_timeout = std::chrono::seconds(5);
  Duration write_timeout = std::chrono::seconds(5);
  // The largest request body held in memory, 1 byte..1 GiB; a larger one
  // is answered 413.
  std::size_t max_request_bytes = std::size_t{8} << 20;

  std::vector<std::string> Validate() const;
};

// Applies `tuning` to a server that is not listening yet and binds it to
// host:port (0: a free port), listening with tuning.listen_backlog. Returns
// the port. Invalid tuning: INVALID_ARGUMENT naming every bad field, and the
// server is left untouched. Then run server.listen_after_bind().
Result<int> TuneAndBind(httplib::Server& server, const ServerTuning& tuning, const std::string& host, int port = 0);

}  // namespace stormguard::http
