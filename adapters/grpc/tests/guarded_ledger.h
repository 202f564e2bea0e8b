// The Ledger service in gRPC's sync and callback APIs, every unary method
// guarded by one line (ServerGuard::Wrap) and served on loopback: the test
// gives one function that both Pay and Refund run, with the call's context.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "stormguard/core/call_context.h"
#include "stormguard/grpc/server.h"
#include "test_server.h"

namespace stormguard::rpc::testkit {

// `method` is "Pay" or "Refund"; `ctx` the guard's context for the call.
using LedgerMethod =
    std::function<grpc::Status(const std::string& method, CallContext& ctx, const EchoRequest&, EchoReply&)>;

// Watch streams "1", "2", "3", unguarded.
inline grpc::Status WatchThree(grpc::ServerWriter<EchoReply>& writer) {
  for (const char* text : {"1", "2", "3"}) {
    EchoReply reply;
    reply.set_text(text);
    writer.Write(reply);
  }
  return grpc::Status::OK;
}

class SyncLedger final : public test::Ledger::Service {
 public:
  SyncLedger(ServerGuard& guard, LedgerMethod method) : method_(std::move(method)), loopback_({guard.Wrap(this)}) {}
  std::string address() const { return loopback_.address(); }

  grpc::Status Pay(grpc::ServerContext*, const EchoRequest* in, EchoReply* out) override {
    return Run("Pay", *in, *out);
  }
  grpc::Status Refund(grpc::ServerContext*, const EchoRequest* in, EchoReply* out) override {
    return Run("Refund", *in, *out);
  }
  grpc::Status Watch(grpc::ServerContext*, const EchoRequest*, grpc::ServerWriter<EchoReply>* writer) override {
    return WatchThree(*writer);
  }

 private:
  grpc::Status Run(const std::string& name, const EchoRequest& in, EchoReply& out) {
    CallContext* ctx = CurrentCallContext();  // the guard's, while the method runs
    if (ctx == nullptr) return {grpc::StatusCode::INTERNAL, "not guarded"};
    return method_(name, *ctx, in, out);
  }

  LedgerMethod method_;
  Loopback loopback_;  // last: stops before the method goes
};

// Each call answers from a thread of its own, as a callback service that
// waits on something else would.
class CallbackLedger final : public test::Ledger::CallbackService {
 public:
  CallbackLedger(ServerGuard& guard, LedgerMethod method) : method_(std::move(method)), loopback_({guard.Wrap(this)}) {}
  std::string address() const { return loopback_.address(); }

  // The sync forms stay hidden behind these.
  using test::Ledger::CallbackService::Pay;
  using test::Ledger::CallbackService::Refund;
  using test::Ledger::CallbackService::Watch;
  grpc::ServerUnaryReactor* Pay(grpc::CallbackServerContext* context, const EchoRequest* in, EchoReply* out) override {
    return Run("Pay", *context, *in, *out);
  }
  grpc::ServerUnaryReactor* Refund(grpc::CallbackServerContext* context, const EchoRequest* in,
                                   EchoReply* out) override {
    return Run("Refund", *context, *in, *out);
  }
  grpc::ServerWriteReactor<EchoReply>* Watch(grpc::CallbackServerContext*, const EchoRequest*) override {
    struct Three final : grpc::ServerWriteReactor<EchoReply> {
      Three() { Next(); }
      void OnWriteDone(bool ok) override { ok ? Next() : Finish(grpc::Status::CANCELLED); }
      void OnDone() override { delete this; }
      void Next() {
        if (sent_ == 3) return Finish(grpc::Status::OK);
        reply_.set_text(std::to_string(++sent_));
        StartWrite(&reply_);
      }
      EchoReply reply_;
      int sent_ = 0;
    };
    return new Three;
  }

 private:
  grpc::ServerUnaryReactor* Run(const std::string& name, grpc::CallbackServerContext& context, const EchoRequest& in,
                                EchoReply& out) {
    grpc::ServerUnaryReactor* reactor = context.DefaultReactor();
    CallContext* ctx = CurrentCallContext();  // the guard's: lives until the answer
    if (ctx == nullptr) {
      reactor->Finish({grpc::StatusCode::INTERNAL, "not guarded"});
      return reactor;
    }
    std::lock_guard lock(mu_);
    threads_.emplace_back([this, name, ctx, &in, &out, reactor] { reactor->Finish(method_(name, *ctx, in, out)); });
    return reactor;
  }

  LedgerMethod method_;
  std::mutex mu_;
  std::vector<std::jthread> threads_;  // guarded by mu_; joined after the server stopped
  Loopback loopback_;                  // last: stops first
};

}  // namespace stormguard::rpc::testkit
