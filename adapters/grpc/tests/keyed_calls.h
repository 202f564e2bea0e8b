// The client side of the at-most-once tests, shared by the sync and the
// callback services' tests: plain calls with idempotency-key metadata, calls
// with hostile keys written by hand, and a stormguard client that retries a
// call whose answer is lost.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "raw_grpc_call.h"
#include "stormguard/grpc/client.h"
#include "test_server.h"

namespace stormguard::rpc::testkit {

// A plain gRPC call "text" with the given idempotency-key metadata values;
// `context`, when given, is the call's (to cancel it).
inline grpc::Status SayKeyed(test::Echo::Stub& stub, const std::string& text, const std::vector<std::string>& keys,
                             EchoReply* reply, Duration budget = std::chrono::seconds(5),
                             grpc::ClientContext* context = nullptr) {
  grpc::ClientContext own;
  grpc::ClientContext& c = context != nullptr ? *context : own;
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
  auto pipeline = PipelineBuilder().AddTimeout(5s).AddRetry(retry).AddAttemptTimeout(300ms).Build().value();
  GrpcClient client = GrpcClient::Create({.pipeline = pipeline}).value();
  auto stub = Stub(address);
  EchoRequest request;
  request.set_text("pay 10");
  EchoReply reply;
  const GrpcResult r =
      client.Call<EchoReply>([&](grpc::ClientContext& c, EchoReply* out) { return stub->Say(&c, request, out); },
                             &reply, {.idempotency_key = "order-1"});
  ASSERT_TRUE(r.ok()) << r.status.ToString();
  EXPECT_EQ(r.attempts, 2);  // the first lost its answer
  EXPECT_EQ(reply.text(), "pay 10 charge 1");
}

// Keys a guard cannot read exactly: empty, one past the longest, sent twice.
// (gRPC's client refuses control characters and longer keys the server's
// metadata limit: RawUnaryCall sends those, see ExpectHostileKeysRefused.)
inline const std::vector<std::vector<std::string>>& UnreadableKeys() {
  static const std::vector<std::vector<std::string>> keys = {
      {""}, {std::string(kMaxIdempotencyKeyLength + 1, 'k')}, {"order-1", "order-2"}};
  return keys;
}

// Sends "pay 10" twice under each hostile idempotency key, written by hand
// on the wire as any peer could: each call must be refused INVALID_ARGUMENT
// with no reply. The caller checks that the handler never ran.
inline void ExpectHostileKeysRefused(const std::string& address) {
  const std::vector<std::vector<std::string>> hostile = {{std::string(kMaxIdempotencyKeyLength + 1, 'k')},
                                                         {std::string(10 * 1024, 'k')},
                                                         {"ab\x01"
                                                          "cd"},
                                                         {"order-1", "order-1"},
                                                         {"order-1", "order-2"},
                                                         {""}};
  EchoRequest request;
  request.set_text("pay 10");
  for (const std::vector<std::string>& keys : hostile) {
    SCOPED_TRACE(std::to_string(keys.size()) + " key(s) of " + std::to_string(keys[0].size()) + " bytes");
    std::vector<std::pair<std::string, std::string>> metadata;
    for (const std::string& k : keys) metadata.emplace_back("idempotency-key", k);
    for (int call = 0; call < 2; ++call) {
      const RawAnswer a = RawUnaryCall(address, kSayPath, request.SerializeAsString(), metadata);
      EXPECT_EQ(a.grpc_status, "3") << a.grpc_message;  // INVALID_ARGUMENT
      EXPECT_NE(a.grpc_message.find("idempotency-key"), std::string::npos) << a.grpc_message;
      EXPECT_EQ(a.reply, "");
    }
  }
}

}  // namespace stormguard::rpc::testkit
