#include "etcd_token.h"

#include "etcd_codec.h"

namespace stormguard::config_sources {
namespace {

constexpr std::size_t kMaxAuthenticateBytes = 64 << 10;

// etcd refused the name or password (or has no auth enabled), as opposed
// to not answering: said as an authentication failure, with etcd's reason
// and without the HTTP status around it.
Status Refused(const std::string& user, const Status& answer) {
  switch (answer.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kPermissionDenied:
    case StatusCode::kUnauthenticated:
    case StatusCode::kNotFound: break;
    default: return answer;
  }
  std::string reason = answer.message();
  if (reason.starts_with("etcd answered HTTP ")) reason.erase(0, reason.find(": ") + 2);
  return Status(StatusCode::kUnauthenticated, "etcd authentication as user \"" + user + "\" failed: " + reason);
}

}  // namespace

EtcdToken::EtcdToken(const EtcdSourceOptions& options, Clock& clock)
    : url_(options.endpoint + "/v3/auth/authenticate"),
      user_(options.user),
      password_(options.password),
      tls_{options.ca_file, options.cert_file, options.key_file, ""},
      limits_{options.connect_timeout, options.request_timeout, kMaxAuthenticateBytes},
      renew_after_(options.token_ttl / 2),
      clock_(clock) {}

Result<std::string> EtcdToken::Get(const std::stop_token& stop) {
  if (!enabled() || (!token_.empty() && clock_.Now() < renew_at())) return token_;
  token_.clear();
  const TimePoint asked = clock_.Now();
  Result<std::string> body = EtcdPost(url_, AuthenticateRequest(user_, password_), limits_, tls_, stop);
  if (!body.ok()) return Refused(user_, body.status());
  Result<std::string> token = ParseAuthenticateReply(*body);
  if (!token.ok()) return token.status();
  token_ = std::move(*token);
  obtained_ = asked;  // the TTL runs from etcd's answer, so count from before the question
  authentications_.fetch_add(1, std::memory_order_relaxed);
  return token_;
}

TimePoint EtcdToken::renew_at() const noexcept {
  if (!enabled()) return kInfiniteFuture;
  return token_.empty() ? kInfinitePast : obtained_ + renew_after_;
}

bool EtcdToken::Forget() noexcept {
  if (token_.empty()) return false;
  token_.clear();
  return true;
}

}  // namespace stormguard::config_sources
