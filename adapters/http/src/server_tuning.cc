#include "stormguard/http/server_tuning.h"

#include <sys/socket.h>

#include "stormguard/core/validation.h"

namespace stormguard::http {
namespace {

constexpr Duration kMaxTimeout = std::chrono::hours(1);

void CheckTimeout(Validator& v, Duration d, std::string_view field) {
  v.Check(d > Duration::zero() && d <= kMaxTimeout, field, "must be in (0, 1h]");
}

// cpp-httplib takes seconds and microseconds.
template <class Set>
void SetTimeout(Duration d, Set set) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(d).count();
  set(static_cast<time_t>(us / 1'000'000), static_cast<time_t>(us % 1'000'000));
}

}  // namespace

std::vector<std::string> ServerTuning::Validate() const {
  Validator v;
  v.Check(listen_backlog >= 1 && listen_backlog <= 65535, "listen_backlog", "must be in [1, 65535]");
  v.Check(workers >= 1 && workers <= 4096, "workers", "must be in [1, 4096]");
  v.Check(keep_alive_max_count >= 1 && keep_alive_max_count <= 1'000'000, "keep_alive_max_count",
          "must be in [1, 1000000]");
  v.Check(keep_alive_timeout >= std::chrono::seconds(1) && keep_alive_timeout <= kMaxTimeout &&
              keep_alive_timeout % std::chrono::seconds(1) == Duration::zero(),
          "keep_alive_timeout", "must be whole seconds in [1s, 1h]");
  CheckTimeout(v, read_timeout, "read_timeout");
  CheckTimeout(v, write_timeout, "write_timeout");
  v.Check(max_request_bytes >= 1 && max_request_bytes <= (std::size_t{1} << 30), "max_request_bytes",
          "must be in [1, 1 GiB]");
  return std::move(v).errors();
}

Result<int> TuneAndBind(httplib::Server& server, const ServerTuning& tuning, const std::string& host, int port) {
  Status s = ValidationStatus("server tuning", tuning.Validate());
  if (!s.ok()) return s;
  if (port < 0 || port > 65535) return Status::InvalidArgument("port: must be in [0, 65535]");
  server.set_tcp_nodelay(tuning.tcp_nodelay);
  const auto workers = static_cast<std::size_t>(tuning.workers);
  server.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  server.set_keep_alive_max_count(static_cast<std::size_t>(tuning.keep_alive_max_count));
  server.set_keep_alive_timeout(
      static_cast<time_t>(std::chrono::duration_cast<std::chrono::seconds>(tuning.keep_alive_timeout).count()));
  SetTimeout(tuning.read_timeout, [&](time_t sec, time_t usec) { server.set_read_timeout(sec, usec); });
  SetTimeout(tuning.write_timeout, [&](time_t sec, time_t usec) { server.set_write_timeout(sec, usec); });
  server.set_payload_max_length(tuning.max_request_bytes);

  // cpp-httplib listens with its own backlog (5): catch the listening socket
  // as it is made, and listen again once bound (Linux resizes the queue).
  int listener = -1;
  server.set_socket_options([&listener](socket_t sock) {
    httplib::default_socket_options(sock);
    listener = sock;
  });
  const int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  server.set_socket_options(httplib::default_socket_options);  // the hook must not outlive `listener`
  if (bound <= 0 || listener < 0) {
    return Status::Unavailable("cannot bind " + host + ":" + std::to_string(port));
  }
  if (::listen(listener, tuning.listen_backlog) != 0) {
    return Status::Internal("listen(backlog " + std::to_string(tuning.listen_backlog) + ") failed");
  }
  return bound;
}

}  // namespace stormguard::http
