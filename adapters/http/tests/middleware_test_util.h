// Helpers shared by the middleware tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "stormguard/http/server.h"
#include "test_server.h"

namespace stormguard::http::testkit {

inline std::unique_ptr<Middleware> MakeMiddleware(MiddlewareOptions o = {}) {
  auto m = Middleware::Create(std::move(o));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

inline httplib::Headers With(std::string name, std::string value) { return {{std::move(name), std::move(value)}}; }

}  // namespace stormguard::http::testkit
