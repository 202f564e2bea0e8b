// stormguard: command-line front end to the library (backoff tables, the
// simulator, the live demo, configuration checks). Bad flags print one line
// and exit with status 2; so does a command that runs out of memory or
// fails with any other exception, naming the command.
#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "commands.h"
#include "render/printable.h"

namespace {

// Set aside at start and given back at the first allocation that fails, so
// the unwinding that follows can allocate: nlohmann::json's destructor does
// (it stacks the values left to free, 16 bytes each, up to some 2 million
// for a 4 MiB document), and so does the message. Never touched, it costs
// address space, not memory; under a limit too low to spare it, the CLI
// runs without it.
constexpr std::size_t kReserveBytes = std::size_t{32} << 20;
char* reserve = nullptr;

void GiveBackTheReserve() {
  delete[] reserve;
  reserve = nullptr;
  std::set_new_handler(nullptr);
  throw std::bad_alloc();
}

// The deepest command the arguments chose ("stormguard simulate").
const CLI::App* ChosenCommand(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return s->parsed(); })) {
    return ChosenCommand(*sub);
  }
  return &app;
}

// "stormguard config show": the words that chose `cmd`.
std::string CommandPath(const CLI::App& cmd) {
  std::string path;
  for (const CLI::App* c = &cmd; c != nullptr; c = c->get_parent()) {
    path = (c->get_parent() ? c->get_name() : std::string("stormguard")) + (path.empty() ? "" : " " + path);
  }
  return path;
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
  const std::string path = CommandPath(*cmd);
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
  reserve = new (std::nothrow) char[kReserveBytes];
  if (reserve != nullptr) std::set_new_handler(GiveBackTheReserve);
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
  } catch (const std::bad_alloc&) {
    // Commands run inside parse(); by now the memory they held is freed.
    std::fprintf(stderr, "%s: out of memory (the input needs more than this machine or its limits give)\n",
                 CommandPath(*ChosenCommand(app)).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", CommandPath(*ChosenCommand(app)).c_str(),
                 stormguard::render::Printable(e.what()).c_str());
    return 2;
  }
  return 0;
}
