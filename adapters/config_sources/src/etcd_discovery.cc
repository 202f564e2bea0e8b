#include "stormguard/config_sources/etcd_discovery.h"

#include <map>
#include <mutex>
#include <utility>

#include "etcd_watcher.h"
#include "replica_record.h"
#include "stormguard/core/validation.h"

namespace stormguard::config_sources {

// Turns the keys under the prefix into the set's members (etcd_discovery.h
// says which are used, which skipped, and when the set is left alone).
class ReplicaFollower final : public EtcdFollower {
 public:
  ReplicaFollower(std::shared_ptr<ReplicaSet> set, EtcdDiscovery::ProblemSink on_problem)
      : set_(std::move(set)), on_problem_(std::move(on_problem)) {}

  bool Offer(const EtcdView& view) override {
    std::vector<EndpointSpec> endpoints;
    std::map<std::string, std::string> skipped;  // key -> "etcd:<key>: <reason>"
    for (const auto& [key, value] : view.values()) {
      Result<EndpointSpec> spec = ParseReplicaRecord(std::string_view(key).substr(view.key().size()), value);
      if (spec.ok()) {
        endpoints.push_back(std::move(*spec));
      } else {
        skipped.emplace(key, "etcd:" + key + ": skipped: " + spec.status().message());
      }
    }
    Tell(skipped);
    if (endpoints.empty() && !applied_.empty()) {
      Problem("etcd:" + view.key() + ": no valid replica under the prefix: keeping the last " +
              std::to_string(applied_.size()));
      return false;
    }
    if (endpoints == applied_) return false;
    if (Status s = set_->Update(endpoints); !s.ok()) {
      Problem("etcd:" + view.key() + ": the replica set refused the update: " + s.message());
      return false;
    }
    std::lock_guard lock(mu_);
    applied_ = std::move(endpoints);
    return true;
  }

  void Report(Status failure) override { Problem(failure.message(), failure.code()); }

  std::size_t endpoints() const {
    std::lock_guard lock(mu_);
    return applied_.size();
  }
  std::vector<std::string> skipped() const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& [key, reason] : skipped_) out.push_back(reason);
    return out;
  }

 private:
  // Reports each newly skipped key (or a key skipped for a new reason)
  // once; past kMaxTold of them in one change, only how many more.
  void Tell(std::map<std::string, std::string>& skipped) {
    std::size_t told = 0;
    for (const auto& [key, reason] : skipped) {
      const auto before = skipped_.find(key);
      if (before != skipped_.end() && before->second == reason) continue;
      if (++told <= kMaxTold) Problem(reason);
    }
    if (told > kMaxTold) Problem("and " + std::to_string(told - kMaxTold) + " more keys skipped (see skipped())");
    std::lock_guard lock(mu_);
    skipped_.swap(skipped);
  }

  void Problem(const std::string& message, StatusCode code = StatusCode::kInvalidArgument) {
    if (on_problem_) on_problem_(Status(code, message));
  }

  static constexpr std::size_t kMaxTold = 20;

  const std::shared_ptr<ReplicaSet> set_;
  const EtcdDiscovery::ProblemSink on_problem_;
  mutable std::mutex mu_;  // guards what stats() reads: applied_ and skipped_
  std::vector<EndpointSpec> applied_;
  std::map<std::string, std::string> skipped_;
};

std::vector<std::string> EtcdDiscoveryOptions::Validate() const {
  Validator v;
  v.Nest("etcd", etcd.Validate());
  v.Check(etcd.coalesce <= std::chrono::milliseconds(500), "etcd.coalesce",
          "must be at most 500ms (a replica must join within a second)");
  return std::move(v).errors();
}

Result<std::unique_ptr<EtcdDiscovery>> EtcdDiscovery::Start(EtcdDiscoveryOptions options,
                                                            std::shared_ptr<ReplicaSet> set, ProblemSink on_problem) {
  std::vector<std::string> errors = options.Validate();
  if (!set) errors.push_back("set: must not be null");
  if (!errors.empty()) return ValidationStatus("EtcdDiscoveryOptions", errors);
  options.etcd.prefix = true;
  auto follower = std::make_unique<ReplicaFollower>(std::move(set), std::move(on_problem));
  const ReplicaFollower* view = follower.get();
  Result<std::unique_ptr<EtcdWatcher>> watcher = StartWatcher(std::move(options.etcd), std::move(follower));
  if (!watcher.ok()) return Status(watcher.status().code(), "EtcdDiscovery: " + watcher.status().message());
  return std::unique_ptr<EtcdDiscovery>(new EtcdDiscovery(std::move(*watcher), view));
}

EtcdDiscovery::EtcdDiscovery(std::unique_ptr<EtcdWatcher> watcher, const ReplicaFollower* follower)
    : watcher_(std::move(watcher)), follower_(follower) {}

EtcdDiscovery::~EtcdDiscovery() { Stop(); }

void EtcdDiscovery::Stop() { watcher_->StopAndWait(); }

EtcdDiscoveryStats EtcdDiscovery::stats() const {
  return {watcher_->stats(), follower_->endpoints(), follower_->skipped().size()};
}

std::vector<std::string> EtcdDiscovery::skipped() const { return follower_->skipped(); }

}  // namespace stormguard::config_sources
