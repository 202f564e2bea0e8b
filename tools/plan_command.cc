// `stormguard plan CHAIN [--json]`: for the chain `stormguard lint` reads,
// the attempts reaching each service when the bottom is down (computed, then
// simulated with the same policies), the deadline each receives and the
// worst-case latency at the top. Exit status 2 when the chain or a config
// cannot be read (each problem named with its file and JSON path).
#include <cstdio>
#include <memory>
#include <string>

#include "chain_input.h"
#include "commands.h"
#include "plan/plan_report.h"

namespace stormguard::cli {
namespace {

struct PlanFlags {
  std::string chain;
  bool json = false;
};

void Plan(const PlanFlags& flags) {
  const ChainInput in = LoadChainOrExit(flags.chain);
  Result<plan::Plan> p = plan::MakePlan(in.chain, in.hops);
  if (!p.ok()) ExitBadInput(Status::InvalidArgument(flags.chain + ": " + p.status().message()));
  const std::string out = flags.json ? plan::PlanJson(*p).dump(2) + "\n" : plan::PlanText(*p);
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void RegisterPlanCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("plan", "show what a call chain does when its bottom is down, then simulate it");
  auto flags = std::make_shared<PlanFlags>();
  cmd->add_option("CHAIN", flags->chain, "the chain description `stormguard lint` reads")->required();
  cmd->add_flag("--json", flags->json, "print the plan as JSON");
  cmd->callback([flags] { Plan(*flags); });
}

}  // namespace stormguard::cli
