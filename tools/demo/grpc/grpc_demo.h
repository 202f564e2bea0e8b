// tools/demo/grpc/grpc_demo.h: `stormguard demo --transport grpc`.
//
// The same three services A -> B -> C as the HTTP demo (service.h), the same
// phases, faults and ledger at C, over gRPC (demo.proto: Demo.Operate for
// a stock check or a charge, Demo.Stats for C's ledger), with three modes:
// naive, grpc_native and stormguard (grpc_hop.h).
//
//   RunDemo(options, stderr, GrpcDriver());     // the runner's gRPC side
//   return RunGrpcService({.role = 'C', ...});  // in `demo-service --transport grpc`
#pragma once

#include <memory>

#include "demo.grpc.pb.h"
#include "demo/demo_runner.h"
#include "demo/service.h"

namespace stormguard::demo {

DemoDriver GrpcDriver();

// As RunService (service.h), serving gRPC; prints "port N" once it accepts calls.
int RunGrpcService(const ServiceOptions& options);

std::unique_ptr<v1::Demo::Service> MakeGrpcRelay(const ServiceOptions& options);
std::unique_ptr<v1::Demo::Service> MakeGrpcBottom(const ServiceOptions& options);

}  // namespace stormguard::demo
