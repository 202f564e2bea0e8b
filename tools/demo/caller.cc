#include "demo/caller.h"

namespace stormguard::demo {

std::unique_ptr<Caller> MakeCaller(Mode mode, NextHop next) {
  return mode == Mode::kNaive ? MakeNaiveCaller() : MakeStormguardCaller(next);
}

}  // namespace stormguard::demo
