// A real etcd for the integration tests: started on loopback with free
// ports and a temporary data directory, frozen (SIGSTOP) and thawed, killed
// (SIGKILL) and restarted on the same data, and removed at the end. Every
// wait is bounded.
//
// Optionally it serves https with client-certificate auth (set_tls before
// Start), and has etcd authentication enabled (EnableAuth after Start):
// a root user then makes the test's own writes, a fresh token for each.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "etcd_codec.h"
#include "etcd_http.h"
#include "testkit/child_process.h"

namespace stormguard::config_sources::testkit {

inline int FreePort() { return stormguard::testkit::FreeLoopbackPort(); }

class EtcdProcess {
 public:
  EtcdProcess() : client_port_(FreePort()), peer_port_(FreePort()) {
    char pattern[] = "/tmp/stormguard-etcd-XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  ~EtcdProcess() {
    Kill();
    std::filesystem::remove_all(dir_);
  }
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  // etcd's server certificate and key, the CA its clients' certificates
  // must chain to, and what the test's own requests present.
  struct Tls {
    std::string server_cert, server_key, trusted_ca;
    EtcdIdentity client;
  };

  std::string endpoint() const { return Url(client_port_); }
  // How often etcd tells idle watchers how far it got; for the next Start.
  void set_progress_notify_interval(std::string interval) { progress_interval_ = std::move(interval); }
  // For the next Start: https, and only clients with a certificate from `tls.trusted_ca`.
  void set_tls(Tls tls) { tls_ = std::move(tls); }
  // For the next Start: etcd's --auth-token-ttl.
  void set_auth_token_ttl(int seconds) { token_ttl_ = std::to_string(seconds); }
  int client_port() const { return client_port_; }

  // Starts etcd serving clients on `port` (default: endpoint()'s) and waits
  // at most 10 s for it to answer; false if it did not.
  bool Start(int port = 0) {
    const std::string client = Url(port == 0 ? client_port_ : port);
    const std::string peer = "http://127.0.0.1:" + std::to_string(peer_port_);  // never TLS: one member
    std::vector<std::string> args = {STORMGUARD_ETCD_PATH,
                                     "--name",
                                     "t",
                                     "--data-dir",
                                     dir_ + "/data",
                                     "--listen-client-urls",
                                     client,
                                     "--advertise-client-urls",
                                     client,
                                     "--listen-peer-urls",
                                     peer,
                                     "--initial-advertise-peer-urls",
                                     peer,
                                     "--initial-cluster",
                                     "t=" + peer,
                                     "--experimental-watch-progress-notify-interval",
                                     progress_interval_,
                                     "--logger",
                                     "zap",
                                     "--log-outputs",
                                     dir_ + "/etcd.log",
                                     "--auth-token-ttl",
                                     token_ttl_};
    if (tls_) {
      args.insert(args.end(), {"--client-cert-auth", "--trusted-ca-file", tls_->trusted_ca, "--cert-file",
                               tls_->server_cert, "--key-file", tls_->server_key});
    }
    pid_ = stormguard::testkit::SpawnTiedChild(std::move(args));  // dies with the test
    for (int i = 0; i < 200; ++i) {
      if (Post(client, "/v3/kv/range", RangeRequest("probe", "", 0)).ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  void Kill() { stormguard::testkit::KillChild(pid_); }

  // Stops the process (SIGSTOP) and lets it go on (SIGCONT): its sockets
  // stay open and silent, as a hung or cut-off member's do.
  void Freeze() const { ::kill(pid_, SIGSTOP); }
  void Thaw() const { ::kill(pid_, SIGCONT); }

  // Writes return the revision after the write (-1 on failure); `port`
  // names another client port the process serves on (0: endpoint()'s).
  std::int64_t Put(const std::string& key, const std::string& value, int port = 0) const {
    return Revision(Post(Url(port == 0 ? client_port_ : port), "/v3/kv/put",
                         R"({"key":")" + Base64Encode(key) + R"(","value":")" + Base64Encode(value) + R"("})"));
  }
  std::int64_t Delete(const std::string& key, int port = 0) const {
    return Revision(Post(Url(port == 0 ? client_port_ : port), "/v3/kv/deleterange",
                         R"({"key":")" + Base64Encode(key) + R"("})"));
  }
  // Puts every pair in one transaction: one revision for all of them.
  std::int64_t PutAll(const std::vector<std::pair<std::string, std::string>>& kvs) const {
    std::string success;
    for (const auto& [k, v] : kvs) {
      if (!success.empty()) success += ",";
      success += R"({"request_put":{"key":")" + Base64Encode(k) + R"(","value":")" + Base64Encode(v) + R"("}})";
    }
    return Revision(Post(endpoint(), "/v3/kv/txn", R"({"success":[)" + success + "]}"));
  }
  // Adds `user` with `password`, allowed to read the keys under `prefix`,
  // and a root user for the test's writes; then turns authentication on.
  bool EnableAuth(const std::string& user, const std::string& password, const std::string& prefix) {
    const auto ok = [&](const std::string& path, const std::string& body) { return Post(endpoint(), path, body).ok(); };
    const std::string perm = R"({"permType":"READ","key":")" + Base64Encode(prefix) + R"(","range_end":")" +
                             Base64Encode(PrefixEnd(prefix)) + R"("})";
    const bool done = ok("/v3/auth/role/add", R"({"name":"root"})") &&
                      ok("/v3/auth/user/add", R"({"name":"root","password":")" + kRootPassword + R"("})") &&
                      ok("/v3/auth/user/grant", R"({"user":"root","role":"root"})") &&
                      ok("/v3/auth/role/add", R"({"name":"reader"})") &&
                      ok("/v3/auth/role/grant", R"({"name":"reader","perm":)" + perm + "}") &&
                      ok("/v3/auth/user/add", R"({"name":")" + user + R"(","password":")" + password + R"("})") &&
                      ok("/v3/auth/user/grant", R"({"user":")" + user + R"(","role":"reader"})") &&
                      ok("/v3/auth/enable", "{}");
    auth_ = done;
    return done;
  }
  bool ChangePassword(const std::string& user, const std::string& password) const {
    return Post(endpoint(), "/v3/auth/user/changepw", R"({"name":")" + user + R"(","password":")" + password + R"("})")
        .ok();
  }

  // Ends a lease now, as etcd does when one runs out.
  bool RevokeLease(std::int64_t id) const { return Post(endpoint(), "/v3/lease/revoke", LeaseIdRequest(id)).ok(); }
  // Deletes every key under `prefix`.
  bool DeletePrefix(const std::string& prefix) const {
    return Post(endpoint(), "/v3/kv/deleterange",
                R"({"key":")" + Base64Encode(prefix) + R"(","range_end":")" + Base64Encode(PrefixEnd(prefix)) + R"("})")
        .ok();
  }

  bool Compact(std::int64_t revision, int port = 0) const {
    return Post(Url(port == 0 ? client_port_ : port), "/v3/kv/compaction",
                R"({"revision":")" + std::to_string(revision) + R"(","physical":true})")
        .ok();
  }

 private:
  inline static const std::string kRootPassword = "root-secret";

  std::string Url(int port) const {
    return (tls_ ? "https" : "http") + std::string("://127.0.0.1:") + std::to_string(port);
  }
  // As root once authentication is on: a token per request, so no TTL can run out under a test.
  Result<std::string> Post(const std::string& base, const std::string& path, const std::string& body) const {
    const EtcdHttpLimits limits{.connect_timeout = std::chrono::milliseconds(200),
                                .request_timeout = std::chrono::seconds(5),
                                .max_bytes = 1 << 20};
    EtcdIdentity identity = tls_ ? tls_->client : EtcdIdentity{};
    if (auth_) {
      Result<std::string> answer =
          EtcdPost(base + "/v3/auth/authenticate", AuthenticateRequest("root", kRootPassword), limits, identity, {});
      if (!answer.ok()) return answer.status();
      Result<std::string> token = ParseAuthenticateReply(*answer);
      if (!token.ok()) return token.status();
      identity.token = *token;
    }
    return EtcdPost(base + path, body, limits, identity, {});
  }
  // The header revision of a write's answer (ParseRangeReply reads any header).
  static std::int64_t Revision(const Result<std::string>& body) {
    if (!body.ok()) return -1;
    Result<RangeReply> r = ParseRangeReply(*body);
    return r.ok() ? r->revision : -1;
  }

  int client_port_;
  int peer_port_;
  std::string dir_;
  std::string progress_interval_ = "100ms";
  std::string token_ttl_ = "300";
  std::optional<Tls> tls_;
  bool auth_ = false;
  pid_t pid_ = -1;
};

}  // namespace stormguard::config_sources::testkit
