#include "stormguard/http/curl_exchange.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>

#include "stormguard/core/classifier.h"

namespace stormguard::http {
namespace {

long MillisCeil(Duration d) {
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(d).count();
  return static_cast<long>(std::clamp<std::int64_t>(ms, 1, 24LL * 3600 * 1000));
}

Status TransportFailure(CURLcode code, CURL* easy, bool cancelled) {
  if (cancelled || code == CURLE_ABORTED_BY_CALLBACK) {
    return Status::Cancelled("request cancelled");
  }
  long sent = 0;  // bytes of request sent: none means it never reached the server
  curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &sent);
  std::string what = std::string("curl: ") + curl_easy_strerror(code);
  OutcomeClass cls = OutcomeClass::kAmbiguous;
  StatusCode status = StatusCode::kUnavailable;
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT: cls = OutcomeClass::kTransient; break;
    case CURLE_OPERATION_TIMEDOUT:
      status = StatusCode::kDeadlineExceeded;
      cls = sent > 0 ? OutcomeClass::kAmbiguous : OutcomeClass::kTransient;
      break;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      status = StatusCode::kInvalidArgument;
      cls = OutcomeClass::kPermanent;
      break;
    default:  // send/receive errors, an empty reply: the request may have run
      cls = sent > 0 ? OutcomeClass::kAmbiguous : OutcomeClass::kTransient;
      break;
  }
  Status s(status, std::move(what));
  s.mutable_hints().outcome = cls;
  return s;
}

// Retrying would fetch the same oversized answer again: permanent.
Status TooLarge(std::size_t max_bytes) {
  Status s =
      Status::ResourceExhausted("response larger than max_response_bytes (" + std::to_string(max_bytes) + " bytes)");
  s.mutable_hints().outcome = OutcomeClass::kPermanent;
  return s;
}

curl_slist* HeaderSlist(const HttpRequest& request, const HeaderList& extra_headers) {
  curl_slist* raw = nullptr;
  for (const auto* list : {&request.headers, &extra_headers}) {
    for (const auto& [name, value] : *list) raw = curl_slist_append(raw, (name + ": " + value).c_str());
  }
  return curl_slist_append(raw, "Expect:");  // no 100-continue round trip for small bodies
}

}  // namespace

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

CurlExchange::CurlExchange(CURL* easy, const HttpRequest& request, const HeaderList& extra_headers,
                           const TransportLimits& limits)
    : easy_(easy), headers_(HeaderSlist(request, extra_headers)), max_bytes_(limits.max_response_bytes) {
  curl_easy_reset(easy);
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers_.get());
  if (!limits.connect_to.empty()) {
    // Any host and port of the URL goes to the replica; the Host header and
    // the connection cache keep the URL's name and the replica's address.
    connect_to_.reset(curl_slist_append(nullptr, ("::" + std::string(limits.connect_to)).c_str()));
    curl_easy_setopt(easy, CURLOPT_CONNECT_TO, connect_to_.get());
  }
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &CurlExchange::OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &CurlExchange::OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, this);
  // Refuses a declared Content-Length over the bound before reading the body.
  curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(std::min<std::size_t>(max_bytes_, std::numeric_limits<curl_off_t>::max())));
  if (request.method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET" || !request.body.empty()) {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  if (!limits.deadline.is_infinite()) {
    const Duration left = limits.deadline.Remaining(limits.now);
    // curl times the transfer on CLOCK_MONOTONIC_RAW, which NTP does not slew,
    // so it may drift some ppm from our steady clock. One more millisecond
    // keeps its DeadlineExceeded from arriving before our deadline.
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, MillisCeil(left + std::chrono::milliseconds(1)));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, MillisCeil(std::min(left, limits.connect_timeout)));
  } else {
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, MillisCeil(limits.connect_timeout));
  }
}

Result<HttpResponse> CurlExchange::Finish(CURLcode code, bool cancelled) {
  if (too_large_ || code == CURLE_FILESIZE_EXCEEDED) return TooLarge(max_bytes_);
  if (cancelled || code != CURLE_OK) return TransportFailure(code, easy_, cancelled);
  long status = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
  response_.status = static_cast<int>(status);
  return std::move(response_);
}

bool CurlExchange::Take(std::size_t n) noexcept {
  if (n > max_bytes_ - bytes_) {
    too_large_ = true;
    return false;
  }
  bytes_ += n;
  return true;
}

// Both callbacks return 0 to fail the transfer; no exception crosses curl.
std::size_t CurlExchange::OnBody(char* data, std::size_t size, std::size_t n, void* self) noexcept try {
  auto* x = static_cast<CurlExchange*>(self);
  if (!x->Take(size * n)) return 0;
  x->response_.body.append(data, size * n);
  return size * n;
} catch (...) {  // out of memory
  return 0;
}

std::size_t CurlExchange::OnHeader(char* data, std::size_t size, std::size_t n, void* self) noexcept try {
  auto* x = static_cast<CurlExchange*>(self);
  if (!x->Take(size * n)) return 0;
  HttpResponse& response = x->response_;
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    response.headers.clear();  // a new response (after 100-continue or a redirect)
    return size * n;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) {
    value.remove_suffix(1);
  }
  response.headers.emplace_back(std::move(name), std::string(value));
  return size * n;
} catch (...) {  // out of memory
  return 0;
}

}  // namespace stormguard::http
