// Service C of the gRPC demo as a real process on loopback: a charge sent
// with an idempotency key C cannot read is refused, not charged once per
// retry.
#include <gtest/gtest.h>

#ifdef STORMGUARD_DEMO_HAS_GRPC

#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "demo.grpc.pb.h"
#include "demo/bottom_ledger.h"
#include "demo/service_process.h"
#include "raw_grpc_call.h"

namespace stormguard::demo {
namespace {

TEST(GrpcBottomServiceTest, AChargeWithAnUnreadableKeyIsRefusedAndNeverCharged) {
  auto c = ServiceProcess::Start(STORMGUARD_CLI_PATH, {"--role", "C", "--mode", "stormguard", "--transport", "grpc",
                                                       "--seed", "7", "--max-lifetime", "60"});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::string address = "127.0.0.1:" + std::to_string((*c)->port());
  const std::vector<std::vector<std::string>> hostile = {{std::string(257, 'k')},
                                                         {std::string(10 * 1024, 'k')},
                                                         {"ab\x01"
                                                          "cd"},
                                                         {"order-1", "order-2"}};
  int op = 0;
  for (const std::vector<std::string>& keys : hostile) {
    v1::OpRequest charge;
    charge.set_op(std::to_string(++op));
    charge.set_phase("t");
    charge.set_charge(true);
    std::vector<std::pair<std::string, std::string>> metadata;
    for (const std::string& k : keys) metadata.emplace_back("idempotency-key", k);
    for (int attempt = 0; attempt < 2; ++attempt) {  // a retry of the same charge
      const rpc::testkit::RawAnswer a =
          rpc::testkit::RawUnaryCall(address, "/stormguard.demo.v1.Demo/Operate", charge.SerializeAsString(), metadata);
      EXPECT_EQ(a.grpc_status, "3") << "op " << op << ": " << a.grpc_message;  // INVALID_ARGUMENT
    }
  }
  auto stub = v1::Demo::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::StatsReply stats;
  ASSERT_TRUE(stub->Stats(&context, v1::StatsRequest(), &stats).ok());
  const BottomCounts t = BottomSnapshotFromJson(nlohmann::json::parse(stats.json())).phases["t"];
  EXPECT_EQ(t.reached, 8u);
  EXPECT_EQ(t.effects, 0u);
  EXPECT_EQ(t.duplicate_effects, 0u);
}

}  // namespace
}  // namespace stormguard::demo

#endif
