// tools/chain_input.h: the chain file that `stormguard lint` and `stormguard
// plan` read, loaded or the process ends with exit status 2 and every
// problem named with its file and JSON path.
#pragma once

#include <string>
#include <vector>

#include "lint/lint_chain.h"
#include "lint/lint_hop.h"

namespace stormguard::cli {

struct ChainInput {
  lint::Chain chain;
  std::vector<lint::Hop> hops;  // one per service, in call order
};

ChainInput LoadChainOrExit(const std::string& path);

// Prints `s` to stderr and exits with status 2 (bad input).
[[noreturn]] void ExitBadInput(const Status& s);

}  // namespace stormguard::cli
