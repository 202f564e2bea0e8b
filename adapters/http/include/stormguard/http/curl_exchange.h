// stormguard/http/curl_exchange.h: one request on a curl easy handle, set up
// and read back the same way by every transport (the blocking PerformOnce and
// the asynchronous client of adapters/asio): headers, body, timeouts, the
// bound on the answer, and what a curl failure says about the request.
//
//   CurlExchange x(easy, request, chain_headers, limits);  // configures `easy`
//   ... run the transfer (a multi handle, driven by whoever owns it) ...
//   Result<HttpResponse> r = x.Finish(code, /*cancelled=*/false);
//
// curl reads the body from `request` during the transfer (CURLOPT_POSTFIELDS
// does not copy), so the request must outlive it. Failures are classified as
// curl_transport.h describes.
// Thread safety: an exchange belongs to one transfer and outlives it (curl's
// callbacks write into it), so it is neither copied nor moved.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>

#include "stormguard/core/result.h"
#include "stormguard/http/curl_transport.h"
#include "stormguard/http/message.h"

namespace stormguard::http {

// curl_global_init, once per process, before the first handle.
void InitCurlOnce();

class CurlExchange {
 public:
  CurlExchange(CURL* easy, const HttpRequest& request, const HeaderList& extra_headers, const TransportLimits& limits);
  CurlExchange(const CurlExchange&) = delete;
  CurlExchange& operator=(const CurlExchange&) = delete;

  // The answer (any HTTP status), or the classified transport failure.
  // `cancelled`: the transfer was dropped before curl finished it.
  Result<HttpResponse> Finish(CURLcode code, bool cancelled);

 private:
  struct SlistDeleter {
    void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
  };
  // Counts the answer's bytes; false (and the transfer ends) past the bound.
  bool Take(std::size_t n) noexcept;
  static std::size_t OnBody(char* data, std::size_t size, std::size_t n, void* self) noexcept;
  static std::size_t OnHeader(char* data, std::size_t size, std::size_t n, void* self) noexcept;

  CURL* easy_;
  std::unique_ptr<curl_slist, SlistDeleter> headers_;
  std::unique_ptr<curl_slist, SlistDeleter> connect_to_;  // the replica, when one was picked
  HttpResponse response_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  bool too_large_ = false;
};

}  // namespace stormguard::http
