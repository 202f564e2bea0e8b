#include "stormguard/config_sources/etcd_registration.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <utility>

#include "etcd_codec.h"
#include "etcd_http.h"
#include "etcd_token.h"
#include "etcd_watcher.h"
#include "replica_record.h"
#include "stormguard/core/validation.h"

namespace stormguard::config_sources {
namespace {

constexpr std::size_t kMaxAnswerBytes = std::size_t{64} << 10;
constexpr int kMaxAttempt = 1000;

}  // namespace

// Grants, puts, renews and revokes (etcd_registration.h), on one executor thread.
class EtcdRegistrar {
 public:
  EtcdRegistrar(EtcdRegistrationOptions options, Backoff reconnect, EtcdRegistration::FailureSink on_failure)
      : options_(std::move(options)),
        reconnect_(std::move(reconnect)),
        on_failure_(std::move(on_failure)),
        clock_(options_.etcd.executor->clock()),
        key_(options_.etcd.key + options_.address),
        record_(ReplicaRecord({options_.address, options_.weight})),
        renew_every_(options_.ttl / 3),
        token_(options_.etcd, clock_),
        rng_(JitterSeed(options_.etcd.seed)) {}

  Executor& executor() const { return *options_.etcd.executor; }
  const std::string& key() const noexcept { return key_; }

  void Run() {
    Loop();
    Revoke();
    std::lock_guard lock(mu_);
    running_ = false;
    done_cv_.notify_all();
  }

  void StopAndWait() {
    stop_.request_stop();
    std::unique_lock lock(mu_);
    done_cv_.wait(lock, [this] { return !running_; });
  }

  EtcdRegistrationStats stats() const {
    constexpr auto r = std::memory_order_relaxed;
    return {grants_.load(r), keepalives_.load(r), failures_.load(r), lost_.load(r), lease_.load(r)};
  }

 private:
  // Registers, then renews every ttl / 3; a failure is retried with backoff,
  // never waiting longer than ttl / 3, so the lease gets several chances.
  void Loop() {
    const std::stop_token stop = stop_.get_token();
    int attempt = 0;
    Duration previous = Duration::zero();
    while (!stop.stop_requested()) {
      const Status s = lease_.load() == 0 ? Register() : Renew();
      if (stop.stop_requested()) break;
      if (s.ok()) {
        attempt = 0;
        previous = Duration::zero();
        reported_.clear();
        clock_.SleepFor(renew_every_, stop);
        continue;
      }
      failures_.fetch_add(1, std::memory_order_relaxed);
      Report(s);
      attempt = std::min(attempt + 1, kMaxAttempt);
      previous = reconnect_.Next(attempt, previous, rng_);
      clock_.SleepFor(std::min(previous, renew_every_), stop);
    }
  }

  Status Register() {
    const auto ttl = std::chrono::duration_cast<std::chrono::seconds>(options_.ttl).count();
    Result<std::string> granted = Call("/v3/lease/grant", LeaseGrantRequest(ttl), stop_.get_token());
    if (!granted.ok()) return granted.status();
    Result<LeaseGrant> lease = ParseLeaseGrantReply(*granted);
    if (!lease.ok()) return lease.status();
    // Held from here on, so Stop revokes it even when it cuts the put short
    // after etcd applied it.
    lease_.store(lease->id);
    Result<std::string> put = Call("/v3/kv/put", PutRequest(key_, record_, lease->id), stop_.get_token());
    if (!put.ok()) {
      if (!stop_.stop_requested()) Revoke();  // a lease holding nothing: let it go
      return put.status();
    }
    grants_.fetch_add(1, std::memory_order_relaxed);
    return Status::Ok();
  }

  // A lease etcd no longer has (TTL 0) is granted again and the key put
  // again at once: the replica was missing from the clients' sets meanwhile.
  Status Renew() {
    Result<std::string> answer = Call("/v3/lease/keepalive", LeaseIdRequest(lease_.load()), stop_.get_token());
    if (!answer.ok()) return answer.status();
    Result<std::int64_t> ttl = ParseKeepAliveReply(*answer);
    if (!ttl.ok()) return ttl.status();
    if (*ttl > 0) {
      keepalives_.fetch_add(1, std::memory_order_relaxed);
      return Status::Ok();
    }
    lost_.fetch_add(1, std::memory_order_relaxed);
    lease_.store(0);
    return Register();
  }

  // Ends the lease, so etcd deletes the key now rather than a TTL later.
  // Also runs after stop was requested: it gets a stop token of its own.
  void Revoke() {
    const std::int64_t lease = lease_.exchange(0);
    if (lease == 0) return;
    Result<std::string> revoked = Call("/v3/lease/revoke", LeaseIdRequest(lease), std::stop_token());
    if (!revoked.ok()) Report(revoked.status());
  }

  // One request; a token etcd calls invalid is replaced and the request
  // tried once more.
  Result<std::string> Call(const std::string& path, const std::string& body, const std::stop_token& stop) {
    Result<std::string> answer = CallOnce(path, body, stop);
    if (answer.ok() || answer.status().code() != StatusCode::kUnauthenticated || !token_.Forget()) return answer;
    return CallOnce(path, body, stop);
  }

  Result<std::string> CallOnce(const std::string& path, const std::string& body, const std::stop_token& stop) {
    Result<std::string> token = token_.Get(stop);
    if (!token.ok()) return token.status();
    const EtcdSourceOptions& o = options_.etcd;
    const EtcdIdentity identity{o.ca_file, o.cert_file, o.key_file, std::move(*token)};
    // A renewal that takes longer than ttl / 3 is better tried again than waited for.
    const Duration timeout = std::min(o.request_timeout, renew_every_);
    return EtcdPost(o.endpoint + path, body, {o.connect_timeout, timeout, kMaxAnswerBytes}, identity, stop);
  }

  void Report(const Status& failure) {
    if (failure.message() == reported_) return;
    reported_ = failure.message();
    if (on_failure_) on_failure_(Status(failure.code(), "etcd:" + key_ + ": " + failure.message()));
  }

  const EtcdRegistrationOptions options_;
  Backoff reconnect_;
  const EtcdRegistration::FailureSink on_failure_;
  Clock& clock_;
  const std::string key_;
  const std::string record_;
  const Duration renew_every_;
  EtcdToken token_;
  Random rng_;
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool running_ = true;   // guarded by mu_: Run has not returned
  std::string reported_;  // the failure last reported, "" once healthy
  std::atomic<std::uint64_t> grants_{0}, keepalives_{0}, failures_{0}, lost_{0};
  std::atomic<std::int64_t> lease_{0};  // the lease granted, 0 when none is held
};

std::vector<std::string> EtcdRegistrationOptions::Validate() const {
  Validator v;
  v.Nest("etcd", etcd.Validate());
  if (const Status s = CheckReplicaAddress(address); !s.ok()) {
    v.Check(false, "address", s.message().substr(s.message().find(": ") + 2));  // "address: " is v's to add
  }
  v.Check(weight > 0.0 && weight <= 1e6, "weight", "must be in (0, 1e6]");
  v.Check(ttl >= std::chrono::seconds(2) && ttl <= std::chrono::hours(1) && ttl % std::chrono::seconds(1) == Duration{},
          "ttl", "must be whole seconds in [2s, 1h]");
  v.Check(etcd.key.size() + address.size() <= 4096, "etcd.key", "and address must be at most 4096 bytes together");
  return std::move(v).errors();
}

Result<std::unique_ptr<EtcdRegistration>> EtcdRegistration::Start(EtcdRegistrationOptions options,
                                                                  FailureSink on_failure) {
  if (std::vector<std::string> errors = options.Validate(); !errors.empty()) {
    return ValidationStatus("EtcdRegistrationOptions", errors);
  }
  Result<Backoff> backoff = Backoff::Create(options.etcd.reconnect);
  if (!backoff.ok()) return std::move(backoff).status();
  if (Status s = EnsureExecutor(options.etcd); !s.ok()) return s;
  auto registrar = std::make_unique<EtcdRegistrar>(std::move(options), std::move(*backoff), std::move(on_failure));
  EtcdRegistrar* r = registrar.get();
  if (!r->executor().TrySubmit([r] { r->Run(); })) {
    return Status::ResourceExhausted("EtcdRegistration: the executor refused the registration task");
  }
  return std::unique_ptr<EtcdRegistration>(new EtcdRegistration(std::move(registrar)));
}

EtcdRegistration::EtcdRegistration(std::unique_ptr<EtcdRegistrar> registrar) : registrar_(std::move(registrar)) {}

EtcdRegistration::~EtcdRegistration() { Stop(); }

void EtcdRegistration::Stop() { registrar_->StopAndWait(); }

EtcdRegistrationStats EtcdRegistration::stats() const { return registrar_->stats(); }

const std::string& EtcdRegistration::key() const noexcept { return registrar_->key(); }

}  // namespace stormguard::config_sources
