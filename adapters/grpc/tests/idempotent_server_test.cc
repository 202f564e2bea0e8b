// ServerGuard::Serve with messages and an idempotency store, against a real
// gRPC server on loopback: a "charge" takes effect once per key.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <latch>
#include <memory>
#include <string>
#include <thread>

#include "keyed_calls.h"
#include "stormguard/grpc/server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::EchoServer;

// A server whose handler charges: each run counts, and the reply says which
// charge it was; `behaviour` decides what the handler answers after that.
class ChargingServer {
 public:
  using Behaviour = std::function<grpc::Status(const ChargingServer& self, int charge)>;

  explicit ChargingServer(Behaviour behaviour = {}, ServerGuardOptions options = {})
      : behaviour_(std::move(behaviour)) {
    store_ = KeyedAnswerStore::Create({.max_entries = 100, .ttl = 1h}).value();
    options.idempotency = store_.get();
    guard_ = ServerGuard::Create(std::move(options)).value();
    server_ = std::make_unique<EchoServer>([this](grpc::ServerContext& sc, const EchoRequest& in, EchoReply& out) {
      ++arrivals_;
      return guard_->Serve(sc, in, out, [&](CallContext&) {
        const int charge = ++charges_;
        out.set_text(in.text() + " charge " + std::to_string(charge));
        return behaviour_ ? behaviour_(*this, charge) : grpc::Status::OK;
      });
    });
  }

  int charges() const { return charges_.load(); }
  int arrivals() const { return arrivals_.load(); }
  IdempotencyStats store_stats() const { return store_->stats(); }
  std::string address() const { return server_->address(); }

 private:
  Behaviour behaviour_;
  std::atomic<int> charges_{0};
  std::atomic<int> arrivals_{0};  // calls that reached the guard
  std::unique_ptr<KeyedAnswerStore> store_;
  std::unique_ptr<ServerGuard> guard_;
  std::unique_ptr<EchoServer> server_;  // last: stops first
};

using testkit::SayKeyed;

TEST(IdempotentServe, RetryAfterALostAnswerTakesEffectOnceAndGetsTheRecordedReply) {
  ChargingServer server([](const ChargingServer& self, int charge) {
    // Committed; the answer comes only once the client gave up on this
    // attempt and sent its retry (bounded).
    for (int i = 0; charge == 1 && i < 3000 && self.arrivals() < 2; ++i) std::this_thread::sleep_for(1ms);
    return grpc::Status::OK;
  });
  testkit::ExpectTheRetryOfALostAnswerGetsTheFirstsReply(server.address());
  EXPECT_EQ(server.charges(), 1);
  EXPECT_EQ(server.store_stats().first, 1u);
}

TEST(IdempotentServe, DifferentKeysChargeTwiceAndNoKeyChargesEveryTime) {
  ChargingServer server;
  auto stub = testkit::Stub(server.address());
  EchoReply a, b, c, d;
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &a).ok());
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-2"}, &b).ok());
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {}, &c).ok());
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {}, &d).ok());
  EXPECT_EQ(server.charges(), 4);
  EXPECT_EQ(b.text(), "pay 10 charge 2");
  EXPECT_EQ(server.store_stats().entries, 2u);
}

TEST(IdempotentServe, SameKeyReplaysWithoutRunningTheHandler) {
  ChargingServer server;
  auto stub = testkit::Stub(server.address());
  EchoReply first, repeat;
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &first).ok());
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &repeat).ok());
  EXPECT_EQ(server.charges(), 1);
  EXPECT_EQ(repeat.text(), "pay 10 charge 1");
  EXPECT_EQ(server.store_stats().replayed, 1u);
}

TEST(IdempotentServe, KeyReusedWithADifferentRequestIsRefused) {
  ChargingServer server;
  auto stub = testkit::Stub(server.address());
  EchoReply first, other;
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &first).ok());
  const grpc::Status s = SayKeyed(*stub, "pay 20", {"order-1"}, &other);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("different request"), std::string::npos) << s.error_message();
  EXPECT_EQ(server.charges(), 1);
}

TEST(IdempotentServe, OneCallersKeyNeverAnswersAnothersCall) {
  ServerGuardOptions options;
  options.caller_identity = [](const grpc::ServerContextBase& sc) {
    const auto it = sc.client_metadata().find("x-caller");
    return it == sc.client_metadata().end() ? std::string() : std::string(it->second.data(), it->second.size());
  };
  ChargingServer server({}, std::move(options));
  auto stub = testkit::Stub(server.address());
  for (const char* caller : {"alice", "bob"}) {
    grpc::ClientContext c;
    c.AddMetadata("idempotency-key", "order-1");
    c.AddMetadata("x-caller", caller);
    EchoRequest request;
    EchoReply reply;
    ASSERT_TRUE(stub->Say(&c, request, &reply).ok());
  }
  EXPECT_EQ(server.charges(), 2);
}

TEST(IdempotentServe, CallersOwnErrorsAreRecordedTransientFailuresAreNot) {
  ChargingServer server([](const ChargingServer&, int charge) {
    if (charge == 1) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "before any effect");
    if (charge == 3) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "insufficient funds");
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  EXPECT_EQ(SayKeyed(*stub, "pay 10", {"order-1"}, &reply).error_code(), grpc::StatusCode::UNAVAILABLE);
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &reply).ok());  // runs again: charge 2
  EXPECT_EQ(reply.text(), "pay 10 charge 2");
  EXPECT_EQ(SayKeyed(*stub, "pay 10", {"order-2"}, &reply).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  const grpc::Status repeat = SayKeyed(*stub, "pay 10", {"order-2"}, &reply);
  EXPECT_EQ(repeat.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(repeat.error_message(), "insufficient funds");
  EXPECT_EQ(server.charges(), 3);
}

TEST(IdempotentServe, ARepeatWaitsForTheRunningFirstAndGetsItsAnswer) {
  std::latch arrived(1), release(1);
  ChargingServer server([&](const ChargingServer&, int charge) {
    if (charge == 1) {
      arrived.count_down();
      release.wait();
    }
    return grpc::Status::OK;
  });
  auto stub = testkit::Stub(server.address());
  EchoReply first, repeat;
  grpc::Status first_status;
  std::thread caller([&] { first_status = SayKeyed(*stub, "pay 10", {"order-1"}, &first); });
  arrived.wait();
  std::thread repeater([&] { EXPECT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &repeat).ok()); });
  // Bounded: the repeat is seen waiting, then the first is let go.
  for (int i = 0; i < 2000 && server.store_stats().waiting == 0; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(server.store_stats().waiting, 1u);
  release.count_down();
  caller.join();
  repeater.join();
  EXPECT_TRUE(first_status.ok());
  EXPECT_EQ(repeat.text(), "pay 10 charge 1");
  EXPECT_EQ(server.charges(), 1);
}

TEST(IdempotentServe, KeysItCannotReadExactlyAreRefusedBeforeTheHandler) {
  ChargingServer server;
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  for (const auto& keys : testkit::UnreadableKeys()) {
    SCOPED_TRACE(keys.size() == 1 ? "key '" + keys[0].substr(0, 8) + "'" : "two keys");
    const grpc::Status s = SayKeyed(*stub, "pay 10", keys, &reply);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  }
  testkit::ExpectHostileKeysRefused(server.address());
  EXPECT_EQ(server.arrivals(), 3 + 12);  // refused by the guard, not by gRPC
  EXPECT_EQ(server.charges(), 0);
  EXPECT_EQ(server.store_stats().entries, 0u);
}

}  // namespace
}  // namespace stormguard::rpc
