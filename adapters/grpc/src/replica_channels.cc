#include "stormguard/grpc/replica_channels.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>

#include <unordered_set>

namespace stormguard::rpc {

std::shared_ptr<grpc::Channel> InsecureChannelTo(const std::string& address) {
  return grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
}

std::shared_ptr<grpc::Channel> ReplicaChannels::For(const std::string& address) {
  {
    std::lock_guard lock(mu_);
    if (auto it = channels_.find(address); it != channels_.end()) return it->second;
  }
  std::shared_ptr<grpc::Channel> made = factory_(address);  // may connect: outside the lock
  std::lock_guard lock(mu_);
  auto [it, fresh] = channels_.emplace(address, std::move(made));
  if (fresh && channels_.size() > 2 * set_.size() + 8) DropLeavers();
  return it->second;
}

void ReplicaChannels::DropLeavers() {
  std::unordered_set<std::string> members;
  for (const EndpointStatus& e : set_.Endpoints()) members.insert(e.address);
  std::erase_if(channels_, [&](const auto& entry) { return !members.contains(entry.first); });
}

}  // namespace stormguard::rpc
