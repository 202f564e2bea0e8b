// `stormguard lint CHAIN [--json | --sarif]`: checks the configurations of a
// call chain (tools/lint/lint_chain.h) for settings that make retry storms;
// prints every finding with its fix. Exit status 1 when a finding is an
// error, 0 otherwise, 2 when the chain or a config cannot be read (each
// problem named with its file and JSON path).
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "chain_input.h"
#include "commands.h"
#include "lint/lint_report.h"

namespace stormguard::cli {
namespace {

struct LintFlags {
  std::string chain;
  bool json = false;
  bool sarif = false;
};

void Lint(const LintFlags& flags, const std::string& version) {
  const ChainInput in = LoadChainOrExit(flags.chain);
  const lint::LintResult r = lint::Lint(in.chain, in.hops);
  std::string out;
  if (flags.sarif) out = lint::LintSarif(r, version).dump(2) + "\n";
  else if (flags.json) out = lint::LintJson(r).dump(2) + "\n";
  else out = lint::LintText(r);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  if (r.has_errors()) std::exit(1);
}

}  // namespace

void RegisterLintCommand(CLI::App& app, const std::string& version) {
  CLI::App* cmd = app.add_subcommand("lint", "check a call chain's configurations for retry-storm anti-patterns");
  auto flags = std::make_shared<LintFlags>();
  cmd->add_option("CHAIN", flags->chain, "the chain description (JSON: services in call order, each with its config)")
      ->required();
  CLI::Option* json = cmd->add_flag("--json", flags->json, "print the findings as JSON");
  cmd->add_flag("--sarif", flags->sarif, "print the findings as SARIF 2.1.0")->excludes(json);
  cmd->callback([flags, version] { Lint(*flags, version); });
}

}  // namespace stormguard::cli
