#include "demo/caller.h"

namespace stormguard::demo {

std::unique_ptr<Caller> MakeCaller(Mode mode, NextHop next, const std::vector<int>& replica_ports) {
  return mode == Mode::kNaive ? MakeNaiveCaller(replica_ports) : MakeStormguardCaller(next, replica_ports);
}

}  // namespace stormguard::demo
