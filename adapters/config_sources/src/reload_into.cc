#include "stormguard/config_sources/reload_into.h"

#include <utility>

namespace stormguard::config_sources {

ConfigSink ReloadInto(config::Registry& registry, std::string origin) {
  return [&registry, origin = std::move(origin)](Result<ConfigUpdate> update) {
    if (update.ok()) {
      // A refusal is already counted and reported by the registry.
      (void)registry.Apply(update->text, update->origin);
    } else {
      registry.Reject(update.status(), origin);
    }
  };
}

}  // namespace stormguard::config_sources
