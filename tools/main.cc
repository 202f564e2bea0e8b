// stormguard: command-line front end to the library (backoff tables, the
// simulator, the live demo). Bad flags print one line and exit with status 2.
#include <cstdio>
#include <string>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"stormguard: deadlines, retries, backoff and retry budgets that do not start storms"};
  app.require_subcommand(1);
  stormguard::cli::RegisterBackoffCommand(app);
  stormguard::cli::RegisterDemoCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "stormguard: %s\n", e.what());
    return 2;
  }
  return 0;
}
