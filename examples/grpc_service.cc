// A gRPC service guarded whole by one line, and a client calling it through
// a pipeline, in one process on loopback. Each method fails its first call
// with UNAVAILABLE, as a restarting replica would; the client's retry
// absorbs it, and a keyed Reserve repeated by its caller is answered from
// the guard's store instead of running again:
//
//   GetStock: OK, 42 in stock after 2 attempts
//   Reserve: OK, reservation 1 after 2 attempts
//   Reserve again, same key: OK, reservation 1 after 1 attempt
//   Reserve ran 2 times, 1 reservation made
//
// Exits 0 when every outcome is the one above. The service is in
// inventory.proto, next to this file.
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "inventory.grpc.pb.h"
// [snippet:grpc]
#include "stormguard/grpc/client.h"
#include "stormguard/grpc/server.h"
#include "stormguard/pipeline/presets.h"

namespace rpc = stormguard::rpc;  // grpc:: stays gRPC's own
using namespace inventory::v1;
// [end snippet]
using namespace std::chrono_literals;
using stormguard::CallContext;
using stormguard::CurrentCallContext;

namespace {

// A plain generated service: the guard, not the service, deals with
// deadlines, retry marks and idempotency keys.
class InventoryService final : public Inventory::Service {
 public:
  grpc::Status GetStock(grpc::ServerContext*, const StockRequest*, StockReply* out) override {
    // The guard's context: the caller's deadline (clamped, minus this
    // hop's reserve), stopped when the caller cancels; calls made from
    // here inherit it.
    const CallContext* ctx = CurrentCallContext();
    if (ctx == nullptr) return {grpc::StatusCode::INTERNAL, "not guarded"};
    if (++stock_calls == 1) return {grpc::StatusCode::UNAVAILABLE, "restarting"};
    out->set_count(42);
    return grpc::Status::OK;
  }
  grpc::Status Reserve(grpc::ServerContext*, const ReserveRequest*, ReserveReply* out) override {
    // UNAVAILABLE is not recorded under the call's key: a retry runs again.
    if (++reserve_calls == 1) return {grpc::StatusCode::UNAVAILABLE, "restarting"};
    out->set_reservation("reservation " + std::to_string(++reservations));
    return grpc::Status::OK;
  }

  std::atomic<int> stock_calls{0}, reserve_calls{0}, reservations{0};
};

// Prints one call's outcome and says whether it is the expected one.
bool Expect(const char* what, const rpc::GrpcResult& r, const std::string& answer, int attempts) {
  std::printf("%s: %s, %s after %d attempt%s\n", what, r.status.ToString().c_str(), answer.c_str(), r.attempts,
              r.attempts == 1 ? "" : "s");
  return r.ok() && r.attempts == attempts;
}

}  // namespace

int main() {
  // [snippet:grpc]

  // The server: InventoryService is a plain generated service (above), and
  // one line guards every unary method of it; a store runs each keyed call
  // at most once.
  auto answers = stormguard::KeyedAnswerStore::Create({}).value();
  auto guard = rpc::ServerGuard::Create({.idempotency = answers.get()}).value();
  InventoryService service;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);  // any free port
  builder.RegisterService(guard->Wrap(&service));  // every unary method, guarded
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  // [end snippet]
  if (server == nullptr) {
    std::printf("the server did not start\n");
    return 1;
  }
  // [snippet:grpc]

  // The client: the user-facing preset (1 s overall, 3 attempts with
  // jittered backoff) on a channel that does not retry by itself.
  auto client = rpc::GrpcClient::Create({.pipeline = stormguard::presets::UserFacing().Build().value()}).value();
  auto stub = Inventory::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));

  // A read may run twice: UNAVAILABLE is retried.
  StockRequest item;
  item.set_sku("A-7");
  StockReply stock;
  rpc::GrpcResult read = client.Call<StockReply>(
      [&](grpc::ClientContext& c, StockReply* out) { return stub->GetStock(&c, item, out); }, &stock,
      {.idempotent = true});
  // A write is repeated only with an idempotency key, the same on every attempt.
  ReserveRequest reserve;
  reserve.set_sku("A-7");
  reserve.set_count(1);
  ReserveReply reserved;
  const auto send_reserve = [&](grpc::ClientContext& c, ReserveReply* out) { return stub->Reserve(&c, reserve, out); };
  rpc::GrpcResult wrote = client.Call<ReserveReply>(send_reserve, &reserved, {.idempotency_key = "order-7"});
  // [end snippet]
  // The caller lost that answer and sends the same operation again: the
  // guard answers with the recorded reply, and Reserve does not run.
  ReserveReply again;
  rpc::GrpcResult repeated = client.Call<ReserveReply>(send_reserve, &again, {.idempotency_key = "order-7"});

  bool ok = Expect("GetStock", read, std::to_string(stock.count()) + " in stock", 2) && stock.count() == 42;
  ok = Expect("Reserve", wrote, reserved.reservation(), 2) && reserved.reservation() == "reservation 1" && ok;
  ok = Expect("Reserve again, same key", repeated, again.reservation(), 1) &&
       again.reservation() == "reservation 1" && ok;
  std::printf("Reserve ran %d times, %d reservation made\n", service.reserve_calls.load(),
              service.reservations.load());
  ok = ok && service.reserve_calls == 2 && service.reservations == 1;

  // Bounded: calls still running are cancelled after the grace period.
  server->Shutdown(std::chrono::system_clock::now() + 2s);
  return ok ? 0 : 1;
}
