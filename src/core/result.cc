#include "stormguard/core/result.h"

#include <cstdio>
#include <cstdlib>

namespace stormguard::result_internal {

void DieOnErrorAccess(const Status& status) noexcept {
  // stdio, not iostream: this may run while static objects are torn down.
  std::fprintf(stderr, "stormguard: value() of a Result holding %s\n", status.ToString().c_str());
  std::abort();
}

}  // namespace stormguard::result_internal
