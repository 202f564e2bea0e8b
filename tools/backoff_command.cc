#include "commands.h"

namespace stormguard::cli {
void RegisterBackoffCommand(CLI::App& app) {
  app.add_subcommand("backoff", "print the waits of a backoff strategy");
}
}  // namespace stormguard::cli
