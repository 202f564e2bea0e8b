// The gRPC side of RunDemo and of `demo-service --transport grpc`.
#include <signal.h>
#include <unistd.h>

#include <cstdio>

#include "demo/grpc/grpc_demo.h"
#include "demo/grpc/grpc_hop.h"
#include "demo/ledger_query.h"
#include "stormguard/core/clock.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

constexpr Duration kEntryBudget = 1s;  // stormguard: the whole chain's deadline, as over HTTP

Result<BottomSnapshot> ReadGrpcLedger(int port) {
  auto stub = v1::Demo::NewStub(DemoChannel(port, Mode::kNaive));
  grpc::ClientContext c;
  c.set_deadline(std::chrono::system_clock::now() + 2s);
  v1::StatsReply reply;
  const grpc::Status s = stub->Stats(&c, v1::StatsRequest(), &reply);
  if (!s.ok()) return Status::Unavailable("C's ledger: " + s.error_message());
  try {
    return BottomSnapshotFromJson(nlohmann::json::parse(reply.json()));
  } catch (const std::exception& e) {
    return Status::Internal(std::string("C's ledger is malformed: ") + e.what());
  }
}

}  // namespace

DemoDriver GrpcDriver() {
  return {.entry = [](Mode mode, int entry) -> EntrySend {
            std::shared_ptr<const GrpcHop> hop = MakeGrpcHop(mode, NextHop::kRelay, entry);
            return [mode, hop](const Operation& op, const std::string& phase) {
              // Naive and grpc_native callers set their own deadlines; stormguard's
              // chain gets one budget and each charge one key.
              CallContext root{.deadline = mode == Mode::kStormguard
                                               ? Deadline::After(Clock::Real().Now(), kEntryBudget)
                                               : Deadline()};
              if (op.charge) root.idempotency_key = "charge-" + std::to_string(op.id);
              v1::OpRequest request;
              request.set_op(std::to_string(op.id));
              request.set_phase(phase);
              request.set_charge(op.charge);
              v1::OpReply reply;
              return hop->Call(request, root, &reply, nullptr).ok();
            };
          },
          .read_ledger = ReadGrpcLedger};
}

int RunGrpcService(const ServiceOptions& options) {
  ::signal(SIGPIPE, SIG_IGN);
  ::alarm(static_cast<unsigned>(std::chrono::ceil<std::chrono::seconds>(options.max_lifetime).count()));
  const Result<std::unique_ptr<LiveConfig>> live = FollowConfig(options);
  if (!live.ok()) return 2;
  std::unique_ptr<v1::Demo::Service> service = options.role == 'C' ? MakeGrpcBottom(options) : MakeGrpcRelay(options);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:" + std::to_string(options.port), grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service.get());
  const std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) {
    std::fprintf(stderr, "stormguard demo-service %c: cannot serve gRPC on 127.0.0.1:%d\n", options.role, options.port);
    return 1;
  }
  std::printf("port %d\n", port);
  std::fflush(stdout);
  server->Wait();
  return 0;
}

}  // namespace stormguard::demo
