// stormguard/grpc/replica_channels.h: one gRPC channel per replica address.
//
// A GrpcClient with a replica set sends each attempt on the channel of the
// replica the set picked; this keeps those channels, made once per address
// by the factory (insecure credentials by default). Channels of replicas
// that left are dropped once the cache holds more than twice the set's
// size, so a fleet that churns through addresses does not keep them all.
//
// Thread safety: For() may run concurrently; it takes a lock held only for
// the lookup (a channel is made outside it).
#pragma once

#include <grpcpp/channel.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "stormguard/fleet/replica_set.h"

namespace stormguard::rpc {

using ChannelFactory = std::function<std::shared_ptr<grpc::Channel>(const std::string& address)>;

// grpc::CreateChannel(address, grpc::InsecureChannelCredentials()).
std::shared_ptr<grpc::Channel> InsecureChannelTo(const std::string& address);

class ReplicaChannels {
 public:
  ReplicaChannels(const ReplicaSet& set, ChannelFactory factory) : set_(set), factory_(std::move(factory)) {}
  std::shared_ptr<grpc::Channel> For(const std::string& address);

 private:
  void DropLeavers();  // under mu_

  const ReplicaSet& set_;
  const ChannelFactory factory_;
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<grpc::Channel>> channels_;
};

}  // namespace stormguard::rpc
