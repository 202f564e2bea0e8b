// A cpp-httplib server on a loopback port, running on its own thread for the
// duration of a test; stops (and joins) when destroyed.
#pragma once

#include <httplib.h>

#include <string>
#include <thread>

namespace stormguard::http::testkit {

class TestServer {
 public:
  TestServer() { server.set_keep_alive_max_count(1); }
  ~TestServer() { Stop(); }
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  // Binds 127.0.0.1 on a free port and serves in the background.
  void Start() {
    port_ = server.bind_to_any_port("127.0.0.1");
    // The socket listens from bind on; connections queue until accept starts.
    thread_ = std::thread([this] { server.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs, so wait for it (bounded).
    for (int i = 0; i < 100000 && !server.is_running(); ++i) std::this_thread::yield();
  }
  void Stop() {
    server.stop();
    if (thread_.joinable()) thread_.join();
  }
  std::string Url(const std::string& path) const { return "http://127.0.0.1:" + std::to_string(port_) + path; }
  // A plain httplib client of this server (no stormguard in between).
  httplib::Client Client() const { return httplib::Client("127.0.0.1", port_); }

  httplib::Server server;

 private:
  int port_ = 0;
  std::thread thread_;
};

}  // namespace stormguard::http::testkit
