#include "stormguard/http/curl_transport.h"

#include <curl/curl.h>

#include "stormguard/http/curl_exchange.h"

namespace stormguard::http {
namespace {

// One multi + easy handle per thread: connections are reused across calls.
struct ThreadHandles {
  ThreadHandles() : multi(curl_multi_init()), easy(curl_easy_init()) {}
  ~ThreadHandles() {
    curl_easy_cleanup(easy);
    curl_multi_cleanup(multi);
  }
  ThreadHandles(const ThreadHandles&) = delete;
  ThreadHandles& operator=(const ThreadHandles&) = delete;
  CURLM* multi;
  CURL* easy;
};

ThreadHandles& Handles() {
  InitCurlOnce();
  thread_local ThreadHandles handles;
  return handles;
}

// Drives the transfer until done or `stop`; returns curl's result code.
CURLcode Drive(CURLM* multi, CURL* easy, const std::stop_token& stop, bool& cancelled) {
  std::stop_callback wake(stop, [multi] { curl_multi_wakeup(multi); });
  curl_multi_add_handle(multi, easy);
  CURLcode result = CURLE_OK;
  for (bool done = false; !done;) {
    int running = 0;
    curl_multi_perform(multi, &running);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy) {
        result = msg->data.result;
        done = true;
      }
    }
    if (done) break;
    if (stop.stop_requested()) {
      cancelled = true;
      break;
    }
    curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  curl_multi_remove_handle(multi, easy);
  return result;
}

}  // namespace

Result<HttpResponse> PerformOnce(const HttpRequest& request, const HeaderList& extra_headers,
                                 const TransportLimits& limits, std::stop_token stop) {
  if (stop.stop_requested()) return Status::Cancelled("request cancelled before it was sent");
  if (limits.deadline.Expired(limits.now)) return Status::DeadlineExceeded("deadline passed before sending");
  ThreadHandles& h = Handles();
  CurlExchange exchange(h.easy, request, extra_headers, limits);
  bool cancelled = false;
  const CURLcode code = Drive(h.multi, h.easy, stop, cancelled);
  return exchange.Finish(code, cancelled);
}

}  // namespace stormguard::http
