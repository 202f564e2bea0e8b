#include "demo/demo_config.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "demo/metrics_server.h"

namespace stormguard::demo {

const config::Registry& DemoRegistry() {
  static const std::unique_ptr<config::Registry> registry = [] {
    // Every pipeline reports to the demo's metrics (served with --metrics-port).
    // The demo rehearses failures: its services take chaos stages from their configuration.
    auto r = std::make_unique<config::Registry>(config::RegistryOptions{
        .pipeline = {.listener = &DemoMetrics().For("demo")}, .allow_chaos = true});
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
