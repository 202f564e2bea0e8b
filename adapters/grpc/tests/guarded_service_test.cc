// ServerGuard::Wrap: a whole service guarded by one line, in the sync and
// the callback API, on real gRPC servers on loopback.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "guard_helpers.h"
#include "guarded_ledger.h"
#include "raw_grpc_call.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc {
namespace {

using namespace std::chrono_literals;
using testkit::EchoReply;
using testkit::EchoRequest;
using testkit::Guard;
using testkit::Pushback;
using testkit::RemainingMs;

// Waits for the call's stop, at most 5 s; whether it came.
bool AwaitStop(const CallContext& ctx) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  std::stop_token stop = ctx.stop;
  cv.wait_for(lock, stop, 5s, [] { return false; });
  return stop.stop_requested();
}

// A one-shot signal whose waits are bounded, so that a failing test ends.
class Signal {
 public:
  void Raise() {
    std::lock_guard lock(mu_);
    raised_ = true;
    cv_.notify_all();
  }
  bool Wait() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, 5s, [&] { return raised_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool raised_ = false;
};

enum class Method { kPay, kRefund };

grpc::Status Call(const std::string& address, Method method, const EchoRequest& request, EchoReply* reply,
                  grpc::ClientContext& context, Duration budget = 5s) {
  context.set_deadline(std::chrono::system_clock::now() + budget);
  auto stub = test::Ledger::NewStub(testkit::Channel(address));
  return method == Method::kPay ? stub->Pay(&context, request, reply) : stub->Refund(&context, request, reply);
}

grpc::Status Call(const std::string& address, Method method, EchoReply* reply, Duration budget = 5s) {
  grpc::ClientContext context;
  return Call(address, method, EchoRequest(), reply, context, budget);
}

template <class Ledger>
class GuardedServiceTest : public ::testing::Test {};

using Apis = ::testing::Types<testkit::SyncLedger, testkit::CallbackLedger>;
TYPED_TEST_SUITE(GuardedServiceTest, Apis);

TYPED_TEST(GuardedServiceTest, EveryMethodsDeadlineIsClampedAndKeepsTheReserve) {
  auto guard = Guard({.limits = {.default_budget = 1s, .max_budget = 2s}, .reserve = {.fraction = 0.1}});
  TypeParam ledger(*guard, [](const std::string&, CallContext& ctx, const EchoRequest&, EchoReply& out) {
    out.set_remaining_ms(RemainingMs(ctx));
    return grpc::Status::OK;
  });
  for (const Method method : {Method::kPay, Method::kRefund}) {
    EchoReply reply;
    ASSERT_TRUE(Call(ledger.address(), method, &reply, std::chrono::hours(1000)).ok());
    EXPECT_LE(reply.remaining_ms(), 1800);  // 2 s, less the 10% reserve
    EXPECT_GT(reply.remaining_ms(), 1000);
  }
  EXPECT_EQ(guard->stats().served, 2u);
  EXPECT_EQ(guard->stats().clamped, 2u);
}

TYPED_TEST(GuardedServiceTest, AShedCallSkipsTheMethodAndAnswersDoNotRetry) {
  auto guard = Guard({.pipeline = PipelineBuilder().AddBulkhead(BulkheadOptions{.max_concurrent = 1}).Build().value()});
  Signal inside, release;
  std::atomic<int> refunds{0};
  TypeParam ledger(*guard, [&](const std::string& method, CallContext&, const EchoRequest&, EchoReply&) {
    if (method == "Refund") {
      ++refunds;
    } else {
      inside.Raise();
      release.Wait();
    }
    return grpc::Status::OK;
  });
  std::thread holder([&] {
    EchoReply reply;
    EXPECT_TRUE(Call(ledger.address(), Method::kPay, &reply).ok());
  });
  EXPECT_TRUE(inside.Wait());
  grpc::ClientContext context;
  EchoReply reply;
  const grpc::Status s = Call(ledger.address(), Method::kRefund, EchoRequest(), &reply, context);
  release.Raise();
  holder.join();
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(refunds.load(), 0);
  EXPECT_EQ(guard->stats().shed, 1u);
  EXPECT_EQ(Pushback(context), "-1");
}

TYPED_TEST(GuardedServiceTest, AFailureAfterADownstreamGaveUpAnswersDoNotRetry) {
  auto guard = Guard();
  TypeParam ledger(*guard, [](const std::string&, CallContext& ctx, const EchoRequest&, EchoReply&) {
    ctx.downstream_gave_up = true;
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "downstream down");
  });
  grpc::ClientContext context;
  EchoReply reply;
  EXPECT_EQ(Call(ledger.address(), Method::kRefund, EchoRequest(), &reply, context).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(Pushback(context), "-1");
  EXPECT_EQ(guard->stats().marked_no_retry, 1u);
}

TYPED_TEST(GuardedServiceTest, AMethodStopsAtItsDeadline) {
  auto guard = Guard({.reserve = {}});
  std::atomic<bool> stopped{false};
  const auto start = std::chrono::steady_clock::now();
  {
    TypeParam ledger(*guard, [&](const std::string&, CallContext& ctx, const EchoRequest&, EchoReply&) {
      stopped = AwaitStop(ctx);
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "stopped");
    });
    EchoReply reply;
    EXPECT_EQ(Call(ledger.address(), Method::kPay, &reply, 300ms).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  }  // the server's shutdown waits for the method
  EXPECT_TRUE(stopped.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

TYPED_TEST(GuardedServiceTest, AMethodStopsWhenTheClientCancels) {
  auto guard = Guard();
  Signal inside;
  std::atomic<bool> stopped{false};
  const auto start = std::chrono::steady_clock::now();
  {
    TypeParam ledger(*guard, [&](const std::string&, CallContext& ctx, const EchoRequest&, EchoReply&) {
      inside.Raise();
      stopped = AwaitStop(ctx);
      return grpc::Status(grpc::StatusCode::CANCELLED, "stopped");
    });
    grpc::ClientContext context;
    std::thread canceller([&] {
      inside.Wait();
      context.TryCancel();
    });
    EchoReply reply;
    EXPECT_EQ(Call(ledger.address(), Method::kRefund, EchoRequest(), &reply, context, 10s).error_code(),
              grpc::StatusCode::CANCELLED);
    canceller.join();
  }
  EXPECT_TRUE(stopped.load());  // from the cancellation, long before the deadline
  EXPECT_EQ(guard->stats().client_cancelled, 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
}

TYPED_TEST(GuardedServiceTest, AKeyedCallRunsOnceAndItsRepeatGetsTheFirstsReply) {
  auto store = KeyedAnswerStore::Create({.max_entries = 100, .ttl = 1h}).value();
  auto guard = Guard({.idempotency = store.get()});
  std::atomic<int> payments{0};
  TypeParam ledger(*guard, [&](const std::string&, CallContext& ctx, const EchoRequest& in, EchoReply& out) {
    out.set_text(in.text() + " charge " + std::to_string(++payments));
    out.set_idempotency_key(ctx.idempotency_key);
    return grpc::Status::OK;
  });
  EchoRequest request;
  request.set_text("pay 10");
  for (int call = 0; call < 2; ++call) {
    grpc::ClientContext context;
    context.AddMetadata("idempotency-key", "order-1");
    EchoReply reply;
    ASSERT_TRUE(Call(ledger.address(), Method::kPay, request, &reply, context).ok()) << call;
    EXPECT_EQ(reply.text(), "pay 10 charge 1") << call;
    EXPECT_EQ(reply.idempotency_key(), "order-1") << call;
  }
  EXPECT_EQ(payments.load(), 1);
}

TYPED_TEST(GuardedServiceTest, ARepeatWhileTheFirstRunsWaitsForItsReply) {
  auto store = KeyedAnswerStore::Create({.max_entries = 100, .ttl = 1h}).value();
  auto guard = Guard({.idempotency = store.get()});
  Signal inside, release;
  std::atomic<int> payments{0};
  TypeParam ledger(*guard, [&](const std::string&, CallContext&, const EchoRequest& in, EchoReply& out) {
    out.set_text(in.text() + " charge " + std::to_string(++payments));
    inside.Raise();
    release.Wait();
    return grpc::Status::OK;
  });
  EchoRequest request;
  request.set_text("pay 10");
  const auto pay = [&] {
    grpc::ClientContext context;
    context.AddMetadata("idempotency-key", "order-1");
    EchoReply reply;
    EXPECT_TRUE(Call(ledger.address(), Method::kPay, request, &reply, context).ok());
    EXPECT_EQ(reply.text(), "pay 10 charge 1");
  };
  std::thread first(pay);
  EXPECT_TRUE(inside.Wait());
  std::thread repeat(pay);
  // Bounded: the repeat has arrived once the guard counted it.
  for (int i = 0; i < 5000 && guard->stats().served < 2; ++i) std::this_thread::sleep_for(1ms);
  release.Raise();
  first.join();
  repeat.join();
  EXPECT_EQ(payments.load(), 1);
}

TYPED_TEST(GuardedServiceTest, AnUnreadableKeyIsRefusedBeforeTheMethod) {
  auto guard = Guard();
  std::atomic<int> payments{0};
  TypeParam ledger(*guard, [&](const std::string&, CallContext&, const EchoRequest&, EchoReply&) {
    ++payments;
    return grpc::Status::OK;
  });
  const testkit::RawAnswer a = testkit::RawUnaryCall(ledger.address(), "/stormguard.test.Ledger/Pay", "",
                                                     {{"idempotency-key",
                                                       "ab\x01"
                                                       "cd"}});
  EXPECT_EQ(a.grpc_status, "3") << a.grpc_message;  // INVALID_ARGUMENT
  EXPECT_EQ(payments.load(), 0);
  EXPECT_EQ(guard->stats().invalid_keys, 1u);
}

TYPED_TEST(GuardedServiceTest, AStreamingMethodPassesThroughUnguarded) {
  auto guard = Guard();
  TypeParam ledger(*guard,
                   [](const std::string&, CallContext&, const EchoRequest&, EchoReply&) { return grpc::Status::OK; });
  auto stub = test::Ledger::NewStub(testkit::Channel(ledger.address()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  auto reader = stub->Watch(&context, EchoRequest());
  std::string seen;
  for (EchoReply reply; reader->Read(&reply);) seen += reply.text();
  EXPECT_TRUE(reader->Finish().ok());
  EXPECT_EQ(seen, "123");
  EXPECT_EQ(guard->stats().served, 0u);
}

}  // namespace
}  // namespace stormguard::rpc
