// Helpers for the Asio adapter's tests: run coroutines on an io_context with
// a bound on time, and a loopback server that takes many connects at once.
#pragma once

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <exception>

#include "test_server.h"

namespace stormguard::http::testkit {

// Runs `work` on `io` (this thread) until it and all it started are done, or
// `bound` passes (a test failure, never a hang).
inline void RunBounded(asio::io_context& io, asio::awaitable<void> work,
                       std::chrono::seconds bound = std::chrono::seconds(20)) {
  asio::co_spawn(io, std::move(work), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  io.run_for(bound);
  EXPECT_TRUE(io.stopped()) << "work still pending after " << bound.count() << " s";
}

// cpp-httplib listens with a backlog of 5, so a thousand connects at once
// would wait for SYN retransmits; listening again on the bound socket widens
// its queue (Linux updates the backlog of a listening socket).
inline void StartWithWideBacklog(TestServer& srv) {
  int listening = -1;
  srv.server.set_socket_options([&listening](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    listening = sock;
  });
  srv.Start();
  srv.server.set_socket_options([](int) {});  // `listening` goes out of scope
  ASSERT_GE(listening, 0);
  ASSERT_EQ(::listen(listening, 4096), 0);
}

}  // namespace stormguard::http::testkit
