#include "stormguard/config_sources/etcd_source.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>

#include "etcd_watcher.h"
#include "stormguard/core/validation.h"

namespace stormguard::config_sources {
namespace {

bool Within(Duration d, Duration lo, Duration hi) { return d >= lo && d <= hi; }

bool PlainText(std::string_view s) {
  for (const unsigned char c : s) {
    if (c <= ' ' || c == 0x7F) return false;
  }
  return true;
}

bool HostName(std::string_view host) {
  return !host.empty() && std::all_of(host.begin(), host.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '-' || c == '_';
  });
}

// What is wrong with `port` (the text after the host's ':'), or "".
std::string PortProblem(std::string_view port) {
  const bool digits = !port.empty() && port.size() <= 5 &&
                      std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (digits && std::stoi(std::string(port)) >= 1 && std::stoi(std::string(port)) <= 65535) return "";
  return "port must be a number in [1, 65535], got \"" + std::string(port.substr(0, 40)) + "\"";
}

// What is wrong with an endpoint, or "": http:// or https://, a host (a
// name, IPv4 or a bracketed IPv6 address), an optional port, and nothing
// after it, since the gateway's paths are added to it.
std::string EndpointProblem(std::string_view endpoint) {
  const std::size_t scheme = endpoint.starts_with("http://") ? 7 : endpoint.starts_with("https://") ? 8 : 0;
  if (scheme == 0) return "must start with http:// or https://";
  if (endpoint.size() > 2048 || !PlainText(endpoint)) return "must be at most 2048 bytes, without spaces";
  std::string_view authority = endpoint.substr(scheme);
  if (const std::size_t end = authority.find_first_of("/?#"); end != std::string_view::npos) {
    return "must have no path, query or fragment (the gateway's paths are added to it), got \"" +
           std::string(authority.substr(end, 40)) + "\"";
  }
  if (authority.find('@') != std::string_view::npos) return "must not carry a user name";
  std::string_view host = authority;
  std::size_t colon = std::string_view::npos;
  if (authority.starts_with('[')) {
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return "has a '[' without its ']'";
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size() && authority[close + 1] != ':') return "must have only a port after ']'";
    colon = close + 1 < authority.size() ? close + 1 : colon;
    if (host.empty() || host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos) {
      return "must have an IPv6 address between '[' and ']'";
    }
  } else {
    colon = authority.find(':');
    host = authority.substr(0, colon);
    if (!HostName(host)) return "must have a host (a name or an address; IPv6 in brackets)";
  }
  return colon == std::string_view::npos ? "" : PortProblem(authority.substr(colon + 1));
}

// What is wrong with a PEM file the source names, or "" (curl reads it at
// each connection, so a missing file would otherwise surface only then).
std::string FileProblem(const std::string& path) {
  std::error_code ec;
  if (path.size() > 4096 || !PlainText(path)) return "must be a path of at most 4096 bytes, without spaces";
  if (!std::filesystem::is_regular_file(path, ec)) return "\"" + path + "\" is not a regular file";
  if (::access(path.c_str(), R_OK) != 0) return "\"" + path + "\" cannot be read (" + std::strerror(errno) + ")";
  return "";
}

void CheckTls(const EtcdSourceOptions& o, Validator& v) {
  for (const auto& [field, path] :
       {std::pair{"ca_file", &o.ca_file}, {"cert_file", &o.cert_file}, {"key_file", &o.key_file}}) {
    if (path->empty()) continue;
    const std::string problem = FileProblem(*path);
    v.Check(problem.empty(), field, problem);
    v.Check(o.endpoint.starts_with("https://"), field, "needs an https:// endpoint");
  }
  v.Check(o.cert_file.empty() == o.key_file.empty(), o.cert_file.empty() ? "cert_file" : "key_file",
          "cert_file and key_file go together");
}

void CheckAuth(const EtcdSourceOptions& o, Validator& v) {
  v.Check(o.user.size() <= 256 && o.user.find_first_of(std::string_view("\0\n\r", 3)) == std::string::npos, "user",
          "must be at most 256 bytes, on one line");
  v.Check(o.password.size() <= 4096, "password", "must be at most 4096 bytes");
  v.Check(o.user.empty() == o.password.empty(), o.user.empty() ? "user" : "password", "user and password go together");
  v.Check(Within(o.token_ttl, std::chrono::seconds(1), std::chrono::hours(24)), "token_ttl", "must be in [1s, 24h]");
}

// Hands the sink the document the view makes: each new one once, and each
// distinct reason there is none once.
class DocumentFollower final : public EtcdFollower {
 public:
  explicit DocumentFollower(ConfigSink sink, std::string origin) : sink_(std::move(sink)), origin_(std::move(origin)) {}

  bool Offer(const EtcdView& view) override {
    Result<std::string> doc = view.Document();
    if (!doc.ok()) {
      delivered_.reset();
      if (doc.status().message() != doc_error_) {
        doc_error_ = doc.status().message();
        sink_(std::move(doc).status());
      }
      return false;
    }
    doc_error_.clear();
    if (delivered_ == *doc) return false;
    delivered_ = *doc;
    sink_(ConfigUpdate{std::move(*doc), origin_, view.revision()});
    return true;
  }
  void Report(Status failure) override { sink_(std::move(failure)); }

 private:
  ConfigSink sink_;
  std::string origin_;
  std::string doc_error_;  // the document error last delivered
  std::optional<std::string> delivered_;
};

}  // namespace

std::vector<std::string> EtcdSourceOptions::Validate() const {
  using std::chrono::milliseconds, std::chrono::minutes;
  Validator v;
  const std::string problem = EndpointProblem(endpoint);
  v.Check(problem.empty(), "endpoint", problem);
  v.Check(!key.empty() && key.size() <= 4096, "key", "must be 1 to 4096 bytes");
  v.Check(Within(connect_timeout, milliseconds(1), minutes(1)), "connect_timeout", "must be in [1ms, 1min]");
  v.Check(Within(request_timeout, milliseconds(1), minutes(10)), "request_timeout", "must be in [1ms, 10min]");
  v.Check(Within(coalesce, Duration::zero(), minutes(1)), "coalesce", "must be in [0, 1min]");
  v.Check(Within(stale_after, milliseconds(10), std::chrono::hours(24)), "stale_after", "must be in [10ms, 24h]");
  v.Nest("reconnect", reconnect.Validate());
  v.Check(reconnect.cap <= minutes(10), "reconnect.cap", "must be at most 10min (an outage must end in a retry)");
  CheckTls(*this, v);
  CheckAuth(*this, v);
  return std::move(v).errors();
}

Result<std::unique_ptr<EtcdSource>> EtcdSource::Start(EtcdSourceOptions options, ConfigSink sink) {
  std::vector<std::string> errors = options.Validate();
  if (!sink) errors.push_back("sink: must not be empty");
  if (!errors.empty()) return ValidationStatus("EtcdSourceOptions", errors);
  auto follower = std::make_unique<DocumentFollower>(std::move(sink), "etcd:" + options.key);
  Result<std::unique_ptr<EtcdWatcher>> watcher = StartWatcher(std::move(options), std::move(follower));
  if (!watcher.ok()) return Status(watcher.status().code(), "EtcdSource: " + watcher.status().message());
  return std::unique_ptr<EtcdSource>(new EtcdSource(std::move(*watcher)));
}

EtcdSource::EtcdSource(std::unique_ptr<EtcdWatcher> watcher) : watcher_(std::move(watcher)) {}

EtcdSource::~EtcdSource() { Stop(); }

void EtcdSource::Stop() { watcher_->StopAndWait(); }

EtcdSourceStats EtcdSource::stats() const { return watcher_->stats(); }

}  // namespace stormguard::config_sources
