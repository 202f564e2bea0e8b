#include "demo/demo_config.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace stormguard::demo {

const config::Registry& DemoRegistry() {
  static const std::unique_ptr<config::Registry> registry = [] {
    auto r = std::make_unique<config::Registry>();
    if (Status s = r->Apply(DemoConfigText(), "tools/demo/stormguard.json"); !s.ok()) {
      std::fprintf(stderr, "stormguard demo: tools/demo/stormguard.json: %s\n", s.ToString().c_str());
      std::abort();
    }
    return r;
  }();
  return *registry;
}

}  // namespace stormguard::demo
