// tools/commands.h: each subcommand of the `stormguard` CLI registers itself
// on the app; main() only parses and reports errors (exit status 2).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace stormguard::cli {

void RegisterBackoffCommand(CLI::App& app);
void RegisterSimulateCommand(CLI::App& app);
void RegisterDemoCommand(CLI::App& app);
void RegisterConfigCommand(CLI::App& app);
// `lint`; `version` goes into its SARIF output.
void RegisterLintCommand(CLI::App& app, const std::string& version);
void RegisterPlanCommand(CLI::App& app);
// `config watch`, on the `config` command (needs stormguard::config_sources).
void RegisterConfigWatchCommand(CLI::App& config);

}  // namespace stormguard::cli
