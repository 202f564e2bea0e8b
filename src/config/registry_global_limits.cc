// The registry's fleet-wide limits: what a configuration's
// "global_rate_limit" leaves to the program (the store, this instance, the
// clock and the refreshes), filled in from RegistryOptions.
#include <unistd.h>

#include <array>
#include <string>

#include "registry_snapshot.h"
#include "stormguard/config/registry.h"

namespace stormguard::config {
namespace {

// "<host name>-<pid>": unique within a fleet of hosts, stable for the process.
std::string DefaultInstanceId() {
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) != 0 || host[0] == '\0') host = {'h', 'o', 's', 't'};
  std::string id(host.data());
  for (char& ch : id) {
    if (ch <= ' ' || ch > '~') ch = '_';  // printable, no spaces (GlobalRateLimiterOptions::instance_id)
  }
  return id.substr(0, 100) + "-" + std::to_string(::getpid());
}

}  // namespace

Result<std::shared_ptr<GlobalRateLimiter>> Registry::MakeGlobalLimit(GlobalRateLimiterOptions o) {
  if (!options_.lease_stores) {
    return Status::FailedPrecondition(
        "this process keeps no fleet-wide shares (RegistryOptions::lease_stores is not set)");
  }
  if (options_.instance_id.empty()) options_.instance_id = DefaultInstanceId();  // under apply_mu_
  if (options_.lease_executor == nullptr) {
    auto made = Executor::Create({.threads = 1, .queue_capacity = 64, .timers = options_.pipeline.timers});
    if (!made.ok()) return std::move(made).status();
    options_.lease_executor = std::move(made).value();
  }
  o.instance_id = options_.instance_id;
  if (o.listener == nullptr) o.listener = options_.pipeline.listener;
  o.clock = options_.pipeline.clock;  // the calls' clock, which the timers follow too
  o.executor = options_.lease_executor.get();
  Result<std::shared_ptr<LeaseStore>> store = options_.lease_stores(o);
  if (!store.ok()) return Status(store.status().code(), "lease store: " + store.status().message());
  if (*store == nullptr) return Status::FailedPrecondition("lease store: the factory made none");
  auto made = GlobalRateLimiter::Create(o, std::move(store).value());
  if (!made.ok()) return std::move(made).status();
  // The limiter's refreshes run on the executor: it lives as long as the
  // limiter, which pipelines handed out may keep past the registry.
  return std::shared_ptr<GlobalRateLimiter>(made->release(),
                                            [keep = options_.lease_executor](GlobalRateLimiter* l) { delete l; });
}

}  // namespace stormguard::config
