#include "stormguard/config/config.h"

namespace stormguard::config {

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
