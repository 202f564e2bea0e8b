#include "demo/demo_config.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "demo/metrics_server.h"

namespace stormguard::demo {

namespace {

// What an operator of a demo service wants to see when a reload arrives.
void PrintReload(const config::ReloadEvent& e) {
  if (e.version <= 1 && e.accepted) return;  // the compiled-in file, at start
  if (e.accepted) {
    std::fprintf(stderr, "stormguard demo-service: config version %llu accepted: %.*s\n",
                 static_cast<unsigned long long>(e.version), int(e.origin.size()), e.origin.data());
    return;
  }
  std::fprintf(stderr, "stormguard demo-service: config rejected, version %llu stays: %.*s: %s\n",
               static_cast<unsigned long long>(e.version), int(e.origin.size()), e.origin.data(),
               e.errors.empty() ? "" : e.errors.front().c_str());
}

}  // namespace

ReplicaLog& DemoReplicaLog() {
  static ReplicaLog* const log = new ReplicaLog(DemoMetrics().For("demo"));  // pipelines may report until exit
  return *log;
}

config::Registry& DemoRegistry() {
  static const std::unique_ptr<config::Registry> registry = [] {
    // Every pipeline reports to the demo's metrics (served with --metrics-port).
    // The demo rehearses failures: its services take chaos stages from their configuration.
    auto r = std::make_unique<config::Registry>(config::RegistryOptions{
        .pipeline = {.listener = &DemoReplicaLog()}, .on_reload = PrintReload, .allow_chaos = true});
    if (Status s = r->Apply(DemoConfigText(), "tools/demo/stormguard.json"); !s.ok()) {
      std::fprintf(stderr, "stormguard demo: tools/demo/stormguard.json: %s\n", s.ToString().c_str());
      std::abort();
    }
    const config::Registry* reg = r.get();  // as static as the listener watching it
    DemoMetrics().Watch("demo", Watched::kReloadsAccepted, [reg] { return double(reg->Stats().accepted); });
    DemoMetrics().Watch("demo", Watched::kReloadsRejected, [reg] { return double(reg->Stats().rejected); });
    return r;
  }();
  return *registry;
}

}  // namespace stormguard::demo
