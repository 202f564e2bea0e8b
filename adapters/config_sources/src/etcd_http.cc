#include "etcd_http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>

#include "etcd_codec.h"

namespace stormguard::config_sources {
namespace {

long Millis(Duration d) {
  return static_cast<long>(std::clamp<std::int64_t>(std::chrono::ceil<std::chrono::milliseconds>(d).count(), 1,
                                                    24LL * 3600 * 1000));
}

// A TLS failure in an operator's words, or "" when `code` is none. curl's
// error buffer (`detail`) names the check or the file. With TLS 1.3 a
// server's refusal of our certificate comes after curl thinks the
// handshake is done: as an alert on the first read, or, when curl is
// still sending the request, as a reset (`unanswered`: over TLS, before
// any answer).
std::string TlsCause(CURLcode code, const std::string& detail, bool unanswered) {
  const bool alert = detail.find("alert") != std::string::npos;
  const bool about_our_cert =
      alert && (detail.find("certificate") != std::string::npos || detail.find("unknown ca") != std::string::npos);
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH: return "TLS: etcd's certificate is not trusted (" + detail + ")";
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CLIENTCERT: return "TLS: " + detail;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      if (about_our_cert) return "TLS: etcd refused our client certificate (" + detail + ")";
      if (alert || code == CURLE_SSL_CONNECT_ERROR) return "TLS: the handshake failed (" + detail + ")";
      if (unanswered) {
        return "TLS: etcd closed the connection right after the handshake, as it does when it refuses our "
               "client certificate (" +
               detail + ")";
      }
      return "";
    default: return "";
  }
}

// curl's failure in our words, with the system's reason when there is one
// (curl's own, "Transferred a partial file", says little to an operator).
std::string Cause(CURLcode code, long os_errno, const std::string& detail, bool tls_unanswered) {
  if (std::string tls = TlsCause(code, detail, tls_unanswered); !tls.empty()) return tls;
  std::string why;
  switch (code) {
    case CURLE_PARTIAL_FILE: why = "the connection closed in the middle of an answer"; break;
    case CURLE_GOT_NOTHING: why = "the connection closed before any answer"; break;
    case CURLE_RECV_ERROR: why = "receiving failed"; break;
    case CURLE_SEND_ERROR: why = "sending failed"; break;
    case CURLE_COULDNT_CONNECT: why = "cannot connect"; break;
    case CURLE_COULDNT_RESOLVE_HOST: why = "cannot resolve the host name"; break;
    case CURLE_OPERATION_TIMEDOUT: why = "timed out"; break;
    default: why = curl_easy_strerror(code);
  }
  if (os_errno != 0) why += " (" + std::string(std::strerror(static_cast<int>(os_errno))) + ")";
  return why;
}

// One POST on its own easy and multi handles, freed on every path.
class Transfer {
 public:
  Transfer(const std::string& url, const std::string& body, const EtcdHttpLimits& limits, const EtcdIdentity& identity,
           LineHandler* lines, const std::stop_token& stop);
  ~Transfer();
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // Runs to the end; then status() and body() say how it went.
  Status Run();
  const std::string& body() const noexcept { return body_; }

 private:
  static std::size_t OnData(char* data, std::size_t size, std::size_t n, void* self) noexcept;
  static int OnProgress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) noexcept;
  Status Finished(CURLcode code);
  bool Take(std::string_view data);
  bool Streaming();
  void SetIdentity(const EtcdIdentity& identity);

  CURL* easy_;
  CURLM* multi_;
  curl_slist* headers_ = nullptr;
  std::string url_;
  std::size_t max_bytes_;
  LineHandler* lines_;
  const std::stop_token& stop_;
  std::string body_;                   // the answer, or the unfinished stream line
  Status failure_;                     // set by a callback that ended the transfer
  char detail_[CURL_ERROR_SIZE] = {};  // curl's words for a failure
};

Transfer::Transfer(const std::string& url, const std::string& body, const EtcdHttpLimits& limits,
                   const EtcdIdentity& identity, LineHandler* lines, const std::stop_token& stop)
    : easy_(curl_easy_init()),
      multi_(curl_multi_init()),
      url_(url),
      max_bytes_(limits.max_bytes),
      lines_(lines),
      stop_(stop) {
  headers_ = curl_slist_append(headers_, "Content-Type: application/json");
  headers_ = curl_slist_append(headers_, "Expect:");
  // etcd's "require leader": a member cut off from its cluster ends the
  // watch instead of leaving it silent (grpc-gateway maps the header to
  // the gRPC metadata hasleader=true).
  headers_ = curl_slist_append(headers_, "Grpc-Metadata-Hasleader: true");
  SetIdentity(identity);
  curl_easy_setopt(easy_, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy_, CURLOPT_NOSIGNAL, 1L);
  // HTTP/1.1 over TLS too, as over http://: the gateway serves both, and
  // a refused client certificate then surfaces as TLS's alert rather than
  // as an HTTP/2 framing error.
  curl_easy_setopt(easy_, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(easy_, CURLOPT_ERRORBUFFER, detail_);
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_);
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(easy_, CURLOPT_WRITEFUNCTION, &Transfer::OnData);
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(easy_, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(easy_, CURLOPT_XFERINFOFUNCTION, &Transfer::OnProgress);
  curl_easy_setopt(easy_, CURLOPT_XFERINFODATA, this);
  curl_easy_setopt(easy_, CURLOPT_CONNECTTIMEOUT_MS, Millis(limits.connect_timeout));
  if (limits.request_timeout > Duration::zero()) {
    curl_easy_setopt(easy_, CURLOPT_TIMEOUT_MS, Millis(limits.request_timeout));
  }
  // A peer that vanished without a reset (a dropped host) is noticed.
  curl_easy_setopt(easy_, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(easy_, CURLOPT_TCP_KEEPIDLE, 10L);
  curl_easy_setopt(easy_, CURLOPT_TCP_KEEPINTVL, 5L);
}

// curl copies the strings it is given, so `identity` need not outlive it.
void Transfer::SetIdentity(const EtcdIdentity& identity) {
  // etcd's gateway hands the Authorization header to etcd as the token.
  if (!identity.token.empty()) headers_ = curl_slist_append(headers_, ("Authorization: " + identity.token).c_str());
  if (!identity.ca_file.empty()) curl_easy_setopt(easy_, CURLOPT_CAINFO, identity.ca_file.c_str());
  if (!identity.cert_file.empty()) curl_easy_setopt(easy_, CURLOPT_SSLCERT, identity.cert_file.c_str());
  if (!identity.key_file.empty()) curl_easy_setopt(easy_, CURLOPT_SSLKEY, identity.key_file.c_str());
}

Transfer::~Transfer() {
  curl_multi_remove_handle(multi_, easy_);
  curl_easy_cleanup(easy_);
  curl_multi_cleanup(multi_);
  curl_slist_free_all(headers_);
}

Status Transfer::Run() {
  std::stop_callback wake(stop_, [this] { curl_multi_wakeup(multi_); });
  curl_multi_add_handle(multi_, easy_);
  for (;;) {
    int running = 0;
    curl_multi_perform(multi_, &running);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi_, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      const CURLcode code = msg->data.result;
      if (stop_.stop_requested()) return Status::Cancelled("stopped");
      if (!failure_.ok()) return failure_;
      return Finished(code);
    }
    if (stop_.stop_requested()) return Status::Cancelled("stopped");
    const Result<Duration> wait = lines_ != nullptr ? lines_->Idle() : Result<Duration>(std::chrono::seconds(1));
    if (!wait.ok()) return wait.status();
    if (!failure_.ok()) return failure_;
    curl_multi_poll(multi_, nullptr, 0, static_cast<int>(std::min<long>(Millis(*wait), 1000)), nullptr);
  }
}

// How a transfer curl says is done went: a stream that had begun (a 200
// answer) only ever ends, and says why in its own words.
Status Transfer::Finished(CURLcode code) {
  long http = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &http);
  long os_errno = 0;
  curl_easy_getinfo(easy_, CURLINFO_OS_ERRNO, &os_errno);
  if (code == CURLE_OK && http != 200) return ParseErrorReply(http, body_);
  if (lines_ != nullptr && http == 200) {
    const std::string why = code == CURLE_OK ? "etcd closed it" : Cause(code, os_errno, detail_, false);
    return Status::Unavailable("etcd watch stream ended: " + why);
  }
  if (code == CURLE_OPERATION_TIMEDOUT) return Status::DeadlineExceeded("etcd at " + url_ + ": timed out");
  const bool tls_unanswered = http == 0 && url_.starts_with("https://");
  if (code != CURLE_OK) {
    return Status::Unavailable("etcd at " + url_ + ": " + Cause(code, os_errno, detail_, tls_unanswered));
  }
  return Status::Ok();
}

// A stream's lines go to the handler once curl has said it is a 200
// answer; anything else (an error body, a Range answer) is kept whole.
bool Transfer::Streaming() {
  if (lines_ == nullptr) return false;
  long http = 0;
  curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &http);
  return http == 200;
}

bool Transfer::Take(std::string_view data) {
  if (!Streaming()) {
    if (data.size() > max_bytes_ - body_.size()) {
      failure_ = Status::ResourceExhausted("etcd at " + url_ + ": answer larger than " + std::to_string(max_bytes_) +
                                           " bytes");
      return false;
    }
    body_.append(data);
    return true;
  }
  for (std::size_t nl; (nl = data.find('\n')) != std::string_view::npos; data.remove_prefix(nl + 1)) {
    if (nl > max_bytes_ - std::min(max_bytes_, body_.size())) break;  // too long: caught below
    body_.append(data.substr(0, nl));
    Status s = lines_->OnLine(body_);
    body_.clear();
    if (!s.ok()) {
      failure_ = std::move(s);
      return false;
    }
  }
  if (data.size() > max_bytes_ - std::min(max_bytes_, body_.size())) {
    failure_ = Status::ResourceExhausted("etcd at " + url_ + ": a watch line is longer than " +
                                         std::to_string(max_bytes_) + " bytes");
    return false;
  }
  body_.append(data);
  return true;
}

std::size_t Transfer::OnData(char* data, std::size_t size, std::size_t n, void* self) noexcept try {
  return static_cast<Transfer*>(self)->Take({data, size * n}) ? size * n : 0;
} catch (...) {  // out of memory, or the handler threw
  static_cast<Transfer*>(self)->failure_ = Status::ResourceExhausted("out of memory reading etcd");
  return 0;
}

int Transfer::OnProgress(void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) noexcept {
  return static_cast<Transfer*>(self)->stop_.stop_requested() ? 1 : 0;
}

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

Result<std::string> EtcdPost(const std::string& url, const std::string& body, const EtcdHttpLimits& limits,
                             const EtcdIdentity& identity, std::stop_token stop) {
  InitCurlOnce();
  Transfer transfer(url, body, limits, identity, nullptr, stop);
  Status s = transfer.Run();
  if (!s.ok()) return s;
  return transfer.body();
}

Status EtcdStream(const std::string& url, const std::string& body, const EtcdHttpLimits& limits,
                  const EtcdIdentity& identity, LineHandler& handler, std::stop_token stop) {
  InitCurlOnce();
  Transfer transfer(url, body, limits, identity, &handler, stop);
  return transfer.Run();
}

}  // namespace stormguard::config_sources
