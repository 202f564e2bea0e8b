#include "stormguard/config/config.h"

namespace stormguard::config {

std::string_view PresetKindName(PresetKind k) noexcept {
  switch (k) {
    case PresetKind::kUserFacing: return "user_facing";
    case PresetKind::kBackgroundJob: return "background_job";
    case PresetKind::kThirdPartyApi: return "third_party_api";
    case PresetKind::kPayment: return "payment";
    case PresetKind::kHighFanOut: return "high_fan_out";
  }
  return "unknown";
}

const MethodConfig* FindMethod(const DestinationConfig& destination, std::string_view method) {
  const auto& methods = destination.methods;
  if (auto it = methods.find(method); it != methods.end()) return &it->second;
  if (const std::size_t slash = method.rfind('/'); slash != std::string_view::npos) {
    std::string wildcard(method.substr(0, slash + 1));
    wildcard += '*';
    if (auto it = methods.find(wildcard); it != methods.end()) return &it->second;
  }
  if (auto it = methods.find("*"); it != methods.end()) return &it->second;
  return nullptr;
}

}  // namespace stormguard::config
