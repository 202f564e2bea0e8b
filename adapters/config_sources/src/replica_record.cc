#include "replica_record.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include <nlohmann/json.hpp>

namespace stormguard::config_sources {
namespace {

using Json = nlohmann::json;

// ValidateEndpoints' verdict on one endpoint, without its "endpoints[0]." field path.
Status CheckSpec(const EndpointSpec& spec) {
  const Status s = ValidateEndpoints({spec});
  if (s.ok()) return s;
  const std::string& message = s.message();
  const std::size_t dot = message.find("].");
  return Status::InvalidArgument(dot == std::string::npos ? message : message.substr(dot + 2));
}

bool PortNumber(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) return false;
  const int n = std::stoi(std::string(port));
  return n >= 1 && n <= 65535;
}

}  // namespace

std::string ReplicaRecord(const EndpointSpec& endpoint) {
  return Json{{"address", endpoint.address}, {"weight", endpoint.weight}}.dump();
}

Status CheckReplicaAddress(std::string_view address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || !PortNumber(address.substr(colon + 1))) {
    return Status::InvalidArgument("address: must be host:port with a port in [1, 65535]");
  }
  return CheckSpec({std::string(address)});
}

Result<EndpointSpec> ParseReplicaRecord(std::string_view address, std::string_view value) {
  if (value.size() > kMaxReplicaRecordBytes) {
    return Status::InvalidArgument("the value is " + std::to_string(value.size()) + " bytes, more than " +
                                   std::to_string(kMaxReplicaRecordBytes));
  }
  if (Status s = CheckReplicaAddress(address); !s.ok()) return Status::InvalidArgument("the key's " + s.message());
  const Json record = Json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object()) return Status::InvalidArgument("the value is not a JSON object");
  const auto named = record.find("address");
  if (named == record.end() || !named->is_string() || *named != address) {
    return Status::InvalidArgument("the value's \"address\" is not the key's (" + std::string(address) + ")");
  }
  EndpointSpec spec{std::string(address)};
  if (const auto weight = record.find("weight"); weight != record.end()) {
    if (!weight->is_number()) return Status::InvalidArgument("\"weight\" is not a number");
    spec.weight = weight->get<double>();
  }
  if (Status s = CheckSpec(spec); !s.ok()) return s;
  return spec;
}

}  // namespace stormguard::config_sources
