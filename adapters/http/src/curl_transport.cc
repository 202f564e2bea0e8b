#include "stormguard/http/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <memory>
#include <mutex>

#include "stormguard/core/classifier.h"

namespace stormguard::http {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

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
  GlobalInitOnce();
  thread_local ThreadHandles handles;
  return handles;
}

struct SlistDeleter {
  void operator()(curl_slist* l) const noexcept { curl_slist_free_all(l); }
};
using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

// Where the callbacks write the answer, and how much they may hold.
struct Sink {
  HttpResponse response;
  std::size_t max_bytes = 0;
  std::size_t bytes = 0;
  bool too_large = false;

  // Counts `n` more bytes; false (and the transfer ends) past the bound.
  bool Take(std::size_t n) {
    if (n > max_bytes - bytes) {
      too_large = true;
      return false;
    }
    bytes += n;
    return true;
  }
};

std::size_t OnBody(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  if (!sink->Take(size * n)) return 0;  // curl fails the transfer (write error)
  sink->response.body.append(data, size * n);
  return size * n;
}

std::size_t OnHeader(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  if (!sink->Take(size * n)) return 0;
  HttpResponse& response = sink->response;
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
}

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
    case CURLE_COULDNT_CONNECT:
      cls = OutcomeClass::kTransient;
      break;
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
  Status s = Status::ResourceExhausted("response larger than max_response_bytes (" +
                                       std::to_string(max_bytes) + " bytes)");
  s.mutable_hints().outcome = OutcomeClass::kPermanent;
  return s;
}

void ConfigureEasy(CURL* easy, const HttpRequest& request, curl_slist* headers,
                   const TransportLimits& limits, Sink& sink) {
  curl_easy_reset(easy);
  curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &sink);
  // Refuses a declared Content-Length over the bound before reading the body.
  curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(
      std::min<std::size_t>(sink.max_bytes, std::numeric_limits<curl_off_t>::max())));
  if (request.method == "HEAD") {
    curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
  } else if (request.method != "GET" || !request.body.empty()) {
    curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  if (!limits.deadline.is_infinite()) {
    const Duration left = limits.deadline.Remaining(limits.now);
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, MillisCeil(left));
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, MillisCeil(std::min(left, limits.connect_timeout)));
  } else {
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, MillisCeil(limits.connect_timeout));
  }
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
  curl_slist* raw = nullptr;
  for (const auto* list : {&request.headers, &extra_headers}) {
    for (const auto& [name, value] : *list) raw = curl_slist_append(raw, (name + ": " + value).c_str());
  }
  raw = curl_slist_append(raw, "Expect:");  // no 100-continue round trip for small bodies
  Slist headers(raw);
  Sink sink{.max_bytes = limits.max_response_bytes};
  ConfigureEasy(h.easy, request, headers.get(), limits, sink);
  bool cancelled = false;
  const CURLcode code = Drive(h.multi, h.easy, stop, cancelled);
  if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED) return TooLarge(limits.max_response_bytes);
  if (cancelled || code != CURLE_OK) return TransportFailure(code, h.easy, cancelled);
  long status = 0;
  curl_easy_getinfo(h.easy, CURLINFO_RESPONSE_CODE, &status);
  sink.response.status = static_cast<int>(status);
  return std::move(sink.response);
}

}  // namespace stormguard::http
