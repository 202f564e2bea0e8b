// `stormguard config check FILE`: reads a configuration (ours or a gRPC
// service config, docs/configuration.md) and prints every error with its
// JSON path, exit status 1; a valid file prints one line, exit status 0.
// `stormguard config show FILE [--json]`: the same errors, or the effective
// policies per destination (config_show.h) as a table or as JSON.
// A file that cannot be read (missing, not a regular file, over 4 MiB:
// file_input.h) is a flag error (exit status 2).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "commands.h"
#include "config_show.h"
#include "file_input.h"
#include "render/printable.h"
#include "stormguard/config/config_json.h"

namespace stormguard::cli {
namespace {

struct Flags {
  std::string file;
  std::string grpc_destination = "default";
  bool json = false;
};

// The file's config; on errors prints each with its path and exits 1. A
// file that cannot be read (file_input.h) is a flag error, exit status 2.
config::ParsedConfig ReadValid(const Flags& flags) {
  const std::string path = render::Printable(flags.file);
  Result<InputFile> in = ReadInputFile(flags.file);
  if (!in.ok()) throw CLI::ValidationError("FILE", render::Printable(in.status().message()));
  config::ParsedConfig parsed = config::ParseConfigText(in->text, flags.grpc_destination);
  if (parsed.errors.empty()) return parsed;
  for (const std::string& e : parsed.errors) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), render::Printable(e).c_str());
  }
  std::fprintf(stderr, "%s: %zu error%s\n", path.c_str(), parsed.errors.size(), parsed.errors.size() == 1 ? "" : "s");
  std::exit(1);
}

void Check(const Flags& flags) {
  const config::ParsedConfig parsed = ReadValid(flags);
  const bool grpc = parsed.format == config::ConfigFormat::kGrpcServiceConfig;
  const std::size_t n = parsed.config.destinations.size();
  std::printf("%s: ok, %s, %zu destination%s\n", render::Printable(flags.file).c_str(),
              grpc ? "gRPC service config" : "stormguard config", n, n == 1 ? "" : "s");
}

// Written as it is made, one destination at a time (config_show.h).
void Show(const Flags& flags) {
  const Status s = ShowEffective(ReadValid(flags), flags.json,
                                 [](std::string_view part) { std::fwrite(part.data(), 1, part.size(), stdout); });
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", render::Printable(flags.file).c_str(), render::Printable(s.message()).c_str());
    std::exit(1);
  }
}

// FILE and --grpc-destination, as both subcommands take them.
void AddFileOptions(CLI::App& cmd, Flags& flags) {
  cmd.add_option("FILE", flags.file, "a stormguard config or a gRPC service config (JSON)")->required();
  cmd.add_option("--grpc-destination", flags.grpc_destination, "the destination a gRPC service config configures")
      ->capture_default_str();
}

}  // namespace

void RegisterConfigCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("config", "check, show and watch configuration");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<Flags>();
  CLI::App* check = cmd->add_subcommand("check", "print every error of a configuration file with its JSON path");
  AddFileOptions(*check, *flags);
  check->callback([flags] { Check(*flags); });
  CLI::App* show =
      cmd->add_subcommand("show", "print the effective policies per destination, after defaults and presets");
  AddFileOptions(*show, *flags);
  show->add_flag("--json", flags->json, "print JSON instead of a table");
  show->callback([flags] { Show(*flags); });
#ifdef STORMGUARD_CLI_HAS_WATCH
  RegisterConfigWatchCommand(*cmd);
#endif
}

}  // namespace stormguard::cli
