// `stormguard config check FILE`: reads a configuration (ours or a gRPC
// service config, docs/configuration.md) and prints every error with its
// JSON path, exit status 1; a valid file prints one line, exit status 0.
// A file that cannot be read is a flag error (exit status 2).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "commands.h"
#include "stormguard/config/config_json.h"

namespace stormguard::cli {
namespace {

// At most one byte past the limit: enough for the parser to refuse the
// file by its size without reading all of a huge one.
std::string ReadBounded(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("FILE", "cannot read " + path);
  std::string text(config::kMaxConfigBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

void Check(const std::string& path, const std::string& grpc_destination) {
  const config::ParsedConfig parsed = config::ParseConfigText(ReadBounded(path), grpc_destination);
  if (!parsed.errors.empty()) {
    for (const std::string& e : parsed.errors) std::fprintf(stderr, "%s: %s\n", path.c_str(), e.c_str());
    std::fprintf(stderr, "%s: %zu error%s\n", path.c_str(), parsed.errors.size(),
                 parsed.errors.size() == 1 ? "" : "s");
    std::exit(1);
  }
  const bool grpc = parsed.format == config::ConfigFormat::kGrpcServiceConfig;
  const std::size_t n = parsed.config.destinations.size();
  std::printf("%s: ok, %s, %zu destination%s\n", path.c_str(),
              grpc ? "gRPC service config" : "stormguard config", n, n == 1 ? "" : "s");
}

}  // namespace

void RegisterConfigCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("config", "check configuration files");
  cmd->require_subcommand(1);
  struct Flags {
    std::string file;
    std::string grpc_destination = "default";
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* check =
      cmd->add_subcommand("check", "print every error of a configuration file with its JSON path");
  check->add_option("FILE", flags->file, "a stormguard config or a gRPC service config (JSON)")
      ->required()
      ->check(CLI::ExistingFile);
  check
      ->add_option("--grpc-destination", flags->grpc_destination,
                   "the destination a gRPC service config configures")
      ->capture_default_str();
  check->callback([flags] { Check(flags->file, flags->grpc_destination); });
#ifdef STORMGUARD_CLI_HAS_WATCH
  RegisterConfigWatchCommand(*cmd);
#endif
}

}  // namespace stormguard::cli
