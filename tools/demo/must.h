// tools/demo/must.h: unwrap a Result made from the demo's constant options.
//
//   auto mw = Must(http::Middleware::Create({...}));
//
// The demo builds its policies from constants, so a failure here is a bug in
// the demo, not bad input: say what failed and abort.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "stormguard/core/result.h"

namespace stormguard::demo {

inline void Must(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "stormguard demo: %s\n", s.ToString().c_str());
    std::abort();
  }
}

template <class T>
T Must(Result<T> r) {
  Must(r.status());
  return std::move(r).value();
}

}  // namespace stormguard::demo
