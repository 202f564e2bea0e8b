// ServerGuard::ServeCallback with messages and an idempotency store, against
// a real callback-API gRPC server on loopback: a "charge" takes effect once
// per key, and a repeat waits for its first without holding a thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "keyed_calls.h"
#include "stormguard/grpc/server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::SayKeyed;

// A callback server whose handler charges: each run counts and the reply
// says which charge it was. The first charge's answer is held until the test
// gives it (Release), as a handler that answers from another thread does.
class HoldingChargeServer {
 public:
  explicit HoldingChargeServer(ServerGuardOptions options = {}) {
    store_ = KeyedAnswerStore::Create({.max_entries = 100, .ttl = 1h}).value();
    options.idempotency = store_.get();
    guard_ = ServerGuard::Create(std::move(options)).value();
    server_ = std::make_unique<testkit::CallbackEchoServer>([this](grpc::CallbackServerContext& sc,
                                                                   const testkit::EchoRequest& in, EchoReply& out) {
      ++arrivals_;
      return guard_->ServeCallback(sc, in, out, [this, &in, &out](CallContext&, ServerAnswer answer) {
        const int charge = ++charges_;
        out.set_text(in.text() + " charge " + std::to_string(charge));
        if (charge > 1) return answer(grpc::Status::OK);
        std::lock_guard lock(mu_);
        held_.emplace(std::move(answer));
      });
    });
  }
  ~HoldingChargeServer() { Release(grpc::Status::OK); }  // a test that failed early still answers

  // Answers the held first charge with `status`; false when none is held.
  bool Release(const grpc::Status& status) {
    std::optional<ServerAnswer> answer;
    {
      std::lock_guard lock(mu_);
      if (!held_) return false;
      answer.emplace(std::move(*held_));
      held_.reset();
    }
    (*answer)(status);
    return true;
  }
  // Bounded: true once `done` holds, false after 5 s.
  static bool Within5s(const std::function<bool()>& done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return done();
  }
  bool Holding() {
    std::lock_guard lock(mu_);
    return held_.has_value();
  }
  // Sends the first "pay 10" under order-1 from a thread of its own and
  // waits (bounded) until its handler holds the answer.
  std::thread StartFirst(test::Echo::Stub& stub, grpc::Status* status = nullptr) {
    std::thread caller([&stub, status] {
      EchoReply reply;
      const grpc::Status s = SayKeyed(stub, "pay 10", {"order-1"}, &reply);
      if (status != nullptr) *status = s;
    });
    EXPECT_TRUE(Within5s([this] { return Holding(); }));
    return caller;
  }

  int charges() const { return charges_.load(); }
  int arrivals() const { return arrivals_.load(); }
  IdempotencyStats store_stats() const { return store_->stats(); }
  std::string address() const { return server_->address(); }

 private:
  std::atomic<int> charges_{0};
  std::atomic<int> arrivals_{0};  // calls that reached the guard
  std::mutex mu_;
  std::optional<ServerAnswer> held_;  // guarded by mu_
  std::unique_ptr<KeyedAnswerStore> store_;
  std::unique_ptr<ServerGuard> guard_;
  std::unique_ptr<testkit::CallbackEchoServer> server_;  // last: stops first
};

TEST(IdempotentServeCallback, RetryAfterALostAnswerTakesEffectOnceAndGetsTheRecordedReply) {
  HoldingChargeServer server;
  // The first charge answers only once the client gave up on that attempt
  // and its retry arrived.
  std::thread releaser([&] {
    HoldingChargeServer::Within5s([&] { return server.arrivals() >= 2; });
    server.Release(grpc::Status::OK);
  });
  testkit::ExpectTheRetryOfALostAnswerGetsTheFirstsReply(server.address());
  releaser.join();
  EXPECT_EQ(server.charges(), 1);
  EXPECT_EQ(server.store_stats().first, 1u);
}

TEST(IdempotentServeCallback, ConcurrentRepeatsWaitForTheRunningFirstAndGetItsReply) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  grpc::Status first_status;
  std::thread caller = server.StartFirst(*stub, &first_status);
  constexpr int kRepeats = 4;
  std::vector<EchoReply> repeats(kRepeats);
  std::vector<grpc::Status> statuses(kRepeats);
  std::vector<std::thread> repeaters;
  for (int i = 0; i < kRepeats; ++i) {
    repeaters.emplace_back([&, i] { statuses[i] = SayKeyed(*stub, "pay 10", {"order-1"}, &repeats[i]); });
  }
  // Bounded: every repeat is seen waiting; meanwhile another key is served.
  EXPECT_TRUE(HoldingChargeServer::Within5s([&] { return server.store_stats().waiting == kRepeats; }));
  EchoReply other;
  EXPECT_TRUE(SayKeyed(*stub, "pay 5", {"order-2"}, &other).ok());
  EXPECT_EQ(other.text(), "pay 5 charge 2");
  EXPECT_TRUE(server.Release(grpc::Status::OK));
  caller.join();
  for (std::thread& t : repeaters) t.join();
  EXPECT_TRUE(first_status.ok()) << first_status.error_message();
  for (int i = 0; i < kRepeats; ++i) {
    EXPECT_TRUE(statuses[i].ok()) << statuses[i].error_message();
    EXPECT_EQ(repeats[i].text(), "pay 10 charge 1");
  }
  EXPECT_EQ(server.charges(), 2);  // order-1 once, order-2 once
  EXPECT_EQ(server.store_stats().waiting, 0u);
}

TEST(IdempotentServeCallback, ARepeatAfterTheFirstFinishedIsReplayedWithoutTheHandler) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  std::thread releaser([&] {
    HoldingChargeServer::Within5s([&] { return server.Holding(); });
    server.Release(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "insufficient funds"));
  });
  EchoReply reply;
  EXPECT_EQ(SayKeyed(*stub, "pay 10", {"order-1"}, &reply).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  releaser.join();
  const grpc::Status repeat = SayKeyed(*stub, "pay 10", {"order-1"}, &reply);
  EXPECT_EQ(repeat.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(repeat.error_message(), "insufficient funds");
  EXPECT_EQ(server.charges(), 1);
  EXPECT_EQ(server.store_stats().replayed, 1u);
}

TEST(IdempotentServeCallback, AFirstThatFailsTransientlyIsForgottenAndItsWaiterRetries) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  std::thread caller = server.StartFirst(*stub);
  EchoReply repeat;
  grpc::Status waited;
  std::thread repeater([&] { waited = SayKeyed(*stub, "pay 10", {"order-1"}, &repeat); });
  EXPECT_TRUE(HoldingChargeServer::Within5s([&] { return server.store_stats().waiting == 1; }));
  server.Release(grpc::Status(grpc::StatusCode::UNAVAILABLE, "before any effect"));
  caller.join();
  repeater.join();
  EXPECT_EQ(waited.error_code(), grpc::StatusCode::UNAVAILABLE) << waited.error_message();
  ASSERT_TRUE(SayKeyed(*stub, "pay 10", {"order-1"}, &repeat).ok());  // the key was forgotten: it runs
  EXPECT_EQ(repeat.text(), "pay 10 charge 2");
}

TEST(IdempotentServeCallback, KeyReusedWithADifferentRequestIsRefused) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  std::thread caller = server.StartFirst(*stub);
  EchoReply other;
  const grpc::Status running = SayKeyed(*stub, "pay 20", {"order-1"}, &other);
  server.Release(grpc::Status::OK);
  caller.join();
  const grpc::Status done = SayKeyed(*stub, "pay 20", {"order-1"}, &other);
  for (const grpc::Status& s : {running, done}) {
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("different request"), std::string::npos) << s.error_message();
  }
  EXPECT_EQ(server.charges(), 1);
}

TEST(IdempotentServeCallback, TheRepeatsOwnDeadlineEndsItsWait) {
  // The repeat grants 1 s; half of it is the hop's reserve, so the server
  // ends the wait at 500 ms and its answer reaches the client in time.
  HoldingChargeServer server({.reserve = {.fraction = 0.5}});
  auto stub = testkit::Stub(server.address());
  std::thread caller = server.StartFirst(*stub);
  EchoReply repeat;
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status s = SayKeyed(*stub, "pay 10", {"order-1"}, &repeat, 1s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_EQ(s.error_message(), "the first call with this idempotency key is still running");
  EXPECT_EQ(server.store_stats().waiting, 0u);
  EXPECT_TRUE(server.Holding());  // the first is still running
  server.Release(grpc::Status::OK);
  caller.join();
  EXPECT_EQ(server.charges(), 1);
}

TEST(IdempotentServeCallback, TheRepeatsCancellationEndsItsWait) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  std::thread caller = server.StartFirst(*stub);
  grpc::ClientContext context;
  std::thread canceller([&] {
    HoldingChargeServer::Within5s([&] { return server.store_stats().waiting == 1; });
    context.TryCancel();
  });
  EchoReply repeat;
  EXPECT_EQ(SayKeyed(*stub, "pay 10", {"order-1"}, &repeat, 10s, &context).error_code(), grpc::StatusCode::CANCELLED);
  canceller.join();
  // The server's side of the wait ends too (bounded), long before 10 s.
  EXPECT_TRUE(HoldingChargeServer::Within5s([&] { return server.store_stats().waiting == 0; }));
  server.Release(grpc::Status::OK);
  caller.join();
}

TEST(IdempotentServeCallback, KeysItCannotReadExactlyAreRefusedBeforeTheHandler) {
  HoldingChargeServer server;
  auto stub = testkit::Stub(server.address());
  EchoReply reply;
  for (const auto& keys : testkit::UnreadableKeys()) {
    SCOPED_TRACE(keys.size() == 1 ? "key '" + keys[0].substr(0, 8) + "'" : "two keys");
    EXPECT_EQ(SayKeyed(*stub, "pay 10", keys, &reply).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  testkit::ExpectHostileKeysRefused(server.address());
  EXPECT_EQ(server.arrivals(), 3 + 12);  // refused by the guard, not by gRPC
  EXPECT_EQ(server.charges(), 0);
  EXPECT_EQ(server.store_stats().entries, 0u);
}

}  // namespace
}  // namespace stormguard::rpc
