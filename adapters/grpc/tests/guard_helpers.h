// What the server guard's tests share: a guard from options (the test fails
// on invalid ones), a context's time left, and the pushback an answer carried.
#pragma once

#include <grpcpp/client_context.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "stormguard/grpc/server.h"

namespace stormguard::rpc::testkit {

inline std::unique_ptr<ServerGuard> Guard(ServerGuardOptions options = {}) {
  auto guard = ServerGuard::Create(std::move(options));
  EXPECT_TRUE(guard.ok()) << guard.status().ToString();
  return std::move(guard).value();
}

inline std::int64_t RemainingMs(const CallContext& ctx) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(ctx.deadline.Remaining(Clock::Real().Now())).count();
}

// The answer's grpc-retry-pushback-ms trailer, or "<none>".
inline std::string Pushback(const grpc::ClientContext& context) {
  const auto trailers = context.GetServerTrailingMetadata();
  const auto it = trailers.find("grpc-retry-pushback-ms");
  return it == trailers.end() ? "<none>" : std::string(it->second.data(), it->second.size());
}

}  // namespace stormguard::rpc::testkit
