#include "chain_input.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace stormguard::cli {

void ExitBadInput(const Status& s) {
  std::fprintf(stderr, "%s\n", s.message().c_str());
  std::exit(2);
}

ChainInput LoadChainOrExit(const std::string& path) {
  Result<lint::Chain> chain = lint::LoadChain(path);
  if (!chain.ok()) ExitBadInput(chain.status());
  Result<std::vector<lint::Hop>> hops = lint::HopsOf(*chain);
  if (!hops.ok()) ExitBadInput(hops.status());
  return {std::move(*chain), std::move(*hops)};
}

}  // namespace stormguard::cli
