// curl_multi_loop.h: one CURLM driven by an io_context, no polling loop.
//
// curl tells which sockets to watch (CURLMOPT_SOCKETFUNCTION) and when its
// own timer is due (CURLMOPT_TIMERFUNCTION); the loop turns each into an
// Asio wait (stream_descriptor::async_wait, steady_timer) and, when one
// fires, hands the event back with curl_multi_socket_action. A finished
// transfer is removed from the multi handle and reported to `on_done`.
//
// curl's callbacks are noexcept: an exception must not unwind through C.
// Thread safety: none; every call and every handler runs on the thread that
// runs the io_context (one loop per io_context thread).
#pragma once

#include <curl/curl.h>

#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <unordered_map>

namespace stormguard::http {

class CurlMultiLoop {
 public:
  using OnDone = std::function<void(CURL* easy, CURLcode code)>;

  // `multi` is null when curl could not make a multi handle.
  CurlMultiLoop(asio::io_context& io, OnDone on_done);
  ~CurlMultiLoop();
  CurlMultiLoop(const CurlMultiLoop&) = delete;
  CurlMultiLoop& operator=(const CurlMultiLoop&) = delete;

  bool ok() const noexcept { return multi_ != nullptr; }
  // Starts a transfer; false when curl refused it.
  bool Add(CURL* easy) noexcept;
  // Drops a transfer at once, without reporting it.
  void Remove(CURL* easy) noexcept;

 private:
  struct Watch;
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* self, void* watch) noexcept;
  static int OnTimer(CURLM* multi, long timeout_ms, void* self) noexcept;
  int Track(curl_socket_t s, int what, Watch* w) noexcept;
  void Arm(const std::shared_ptr<Watch>& w, int direction);
  // Passes an event to curl, then reports every finished transfer.
  void Act(curl_socket_t s, int events);

  asio::io_context& io_;
  OnDone on_done_;
  CURLM* multi_;
  asio::steady_timer timer_;
  std::unordered_map<curl_socket_t, std::shared_ptr<Watch>> watches_;
};

}  // namespace stormguard::http
