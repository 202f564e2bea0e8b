// stormguard: command-line front end to the library (backoff tables, the
// simulator, the live demo, configuration checks). Bad flags print one line
// and exit with status 2.
#include <cstdio>
#include <string>

#include "commands.h"

namespace {

// The deepest command the arguments chose ("stormguard simulate").
const CLI::App* ChosenCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); })) {
    return ChosenCommand(*sub);
  }
  return &app;
}

// When `app` needed a subcommand and got none: which word was not one, and
// the ones it takes. Empty for any other missing argument.
std::string MissingSubcommand(const CLI::App& app) {
  const CLI::App* cmd = ChosenCommand(app);
  if (cmd->get_require_subcommand_min() == 0) return "";
  std::string names;
  for (const CLI::App* sub : cmd->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  std::string path;
  for (const CLI::App* c = cmd; c != nullptr; c = c->get_parent()) {
    path = (c->get_parent() ? c->get_name() : std::string("stormguard")) + (path.empty() ? "" : " " + path);
  }
  const std::vector<std::string> extra = cmd->remaining();
  if (extra.empty()) return "'" + path + "' needs a command: " + names;
  return "'" + extra.front() + "' is not a command of '" + path + "' (use " + names + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"stormguard: deadlines, retries, backoff and retry budgets that do not start storms"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "stormguard " STORMGUARD_VERSION, "print the version and exit");
  stormguard::cli::RegisterBackoffCommand(app);
  stormguard::cli::RegisterSimulateCommand(app);
  stormguard::cli::RegisterDemoCommand(app);
  stormguard::cli::RegisterConfigCommand(app);
  stormguard::cli::RegisterLintCommand(app, STORMGUARD_VERSION);
  stormguard::cli::RegisterPlanCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RequiredError& e) {
    const std::string missing = MissingSubcommand(app);
    std::fprintf(stderr, "stormguard: %s\n", missing.empty() ? e.what() : missing.c_str());
    return 2;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "stormguard: %s\n", e.what());
    return 2;
  }
  return 0;
}
