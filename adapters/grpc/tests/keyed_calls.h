// The client side of the at-most-once tests, shared by the sync and the
// callback services' tests: plain calls with idempotency-key metadata, and a
// stormguard client that retries a call whose answer is lost.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "stormguard/grpc/client.h"
#include "test_server.h"

namespace stormguard::grpc::testing {

// A plain gRPC call "text" with the given idempotency-key metadata values;
// `context`, when given, is the call's (to cancel it).
inline ::grpc::Status SayKeyed(test::Echo::Stub& stub, const std::string& text, const std::vector<std::string>& keys,
                               EchoReply* reply, Duration budget = std::chrono::seconds(5),
                               ::grpc::ClientContext* context = nullptr) {
  ::grpc::ClientContext own;
  ::grpc::ClientContext& c = context != nullptr ? *context : own;
  c.set_deadline(std::chrono::system_clock::now() + budget);
  for (const std::string& k : keys) c.AddMetadata("idempotency-key", k);
  EchoRequest request;
  request.set_text(text);
  return stub.Say(&c, request, reply);
}

// "pay 10" under key order-1 through a GrpcClient that gives each attempt
// 300 ms and retries at once (3 attempts), against a server that answers
// the first attempt only after the retry arrived: the retry must get the
// first's reply ("charge 1") in the second attempt. The caller checks that
// the handler ran once.
inline void ExpectTheRetryOfALostAnswerGetsTheFirstsReply(const std::string& address) {
  using namespace std::chrono_literals;
  RetryOptions retry{.max_attempts = 3};
  retry.backoff.base = 1ms;
  retry.backoff.cap = 1ms;
  auto pipeline = std::make_shared<const Pipeline>(
      PipelineBuilder().AddTimeout(5s).AddRetry(retry).AddAttemptTimeout(300ms).Build().value());
  GrpcClient client = GrpcClient::Create({.pipeline = pipeline}).value();
  auto stub = Stub(address);
  EchoRequest request;
  request.set_text("pay 10");
  EchoReply reply;
  const GrpcResult r = client.Call<EchoReply>(
      [&](::grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, request, out); }, &reply,
      {.idempotency_key = "order-1"});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.attempts, 2);  // the first lost its answer
  EXPECT_EQ(reply.text(), "pay 10 charge 1");
}

// Keys a guard cannot read exactly: empty, too long, sent twice. (Non-ASCII
// and control characters cannot be sent: gRPC's client refuses them;
// ReadIncomingChain's tests cover them arriving anyway.)
inline const std::vector<std::vector<std::string>>& UnreadableKeys() {
  static const std::vector<std::vector<std::string>> keys = {
      {""}, {std::string(300, 'k')}, {"order-1", "order-2"}};
  return keys;
}

}  // namespace stormguard::grpc::testing
