#include "replicas_json.h"

namespace stormguard::config::config_internal {

template <class V>
void Fields(V& v, OutlierDetectionOptions& o) {
  v.Field("consecutive_failures", o.consecutive_failures);
  v.Field("interval", o.interval);
  v.Field("base_ejection_time", o.base_ejection_time);
  v.Field("max_ejection_time", o.max_ejection_time);
  v.Field("max_ejection_percent", o.max_ejection_percent);
  v.Field("success_rate_stdev_factor", o.success_rate_stdev_factor);
  v.Field("success_rate_minimum_hosts", o.success_rate_minimum_hosts);
  v.Field("success_rate_request_volume", o.success_rate_request_volume);
}

template <class V>
void Fields(V& v, EndpointLoadOptions& o) {  // weight: per endpoint
  v.Field("decay", o.decay);
  v.Field("initial_latency", o.initial_latency);
  v.Field("failure_penalty", o.failure_penalty);
}

template <class V>
void Fields(V& v, EndpointSpec& e) {
  v.Field("address", e.address);
  v.Field("weight", e.weight);
}

namespace {

// "host:port", or {"address": "host:port", "weight": 2}.
EndpointSpec ReadEndpoint(const Json& j, const std::string& path, Errors& errors) {
  EndpointSpec e;
  if (j.is_string()) {
    Read(j, path, errors, e.address);
  } else {
    Read(j, path, errors, e);
  }
  return e;
}

std::vector<EndpointSpec> ReadEndpoints(const Json& j, const std::string& path, Errors& errors) {
  std::vector<EndpointSpec> out;
  if (!j.is_array()) {
    errors.push_back(path + ": must be an array of \"host:port\" or {\"address\", \"weight\"}");
    return out;
  }
  if (j.size() > kMaxEndpoints) {
    errors.push_back(path + ": must have at most " + std::to_string(kMaxEndpoints) + " endpoints");
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(ReadEndpoint(j[i], IndexPath(path, i), errors));
  return out;
}

}  // namespace

void CheckReplicas(const ReplicasConfig& r, const std::string& path, Errors& errors) {
  if (r.endpoints) {
    if (Status s = ValidateEndpoints(*r.endpoints); !s.ok()) errors.push_back(path + "." + std::string(s.message()));
  }
  Nest(errors, path, r.SetOptions().Validate());
}

ReplicasConfig ReadReplicas(const Json& j, const std::string& path, Errors& errors) {
  ReplicasConfig r;
  ObjectReader reader(j, path, errors);
  if (!reader.ok()) return r;
  if (const Json* v = reader.Take("endpoints")) r.endpoints = ReadEndpoints(*v, ChildPath(path, "endpoints"), errors);
  if (const Json* v = reader.Take("picker")) {
    const auto kind = v->is_string() ? ParsePickerKind(v->get_ref<const std::string&>()) : std::nullopt;
    if (kind) {
      r.picker = *kind;
    } else {
      errors.push_back(ChildPath(path, "picker") +
                       ": must be \"random\", \"round_robin\", \"p2c_least_outstanding\" or \"p2c_peak_ewma\"");
    }
  }
  reader.Field("load", r.load);
  reader.Field("outlier_detection", r.outlier_detection);
  reader.Finish();
  CheckReplicas(r, path, errors);
  return r;
}

Json WriteReplicas(const ReplicasConfig& r) {
  Json out = Json::object();
  if (r.endpoints) {
    Json list = Json::array();
    for (const EndpointSpec& e : *r.endpoints) {
      list.push_back(e.weight == 1.0 ? Json(e.address) : Write(e));
    }
    out["endpoints"] = std::move(list);
  }
  out["picker"] = std::string(PickerKindName(r.picker));
  out["load"] = Write(r.load);
  out["outlier_detection"] = Write(r.outlier_detection);
  return out;
}

}  // namespace stormguard::config::config_internal
