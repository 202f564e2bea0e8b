#include "lint/lint_chain.h"

#include <cmath>
#include <memory>

#include <nlohmann/json.hpp>

#include "file_input.h"
#include "lint/lint_rules.h"
#include "render/printable.h"
#include "stormguard/config/config_json.h"

namespace stormguard::lint {
namespace {

using Json = nlohmann::json;
constexpr double kMaxRate = 1e9;  // calls per second: far beyond any real service

class Reader {
 public:
  Reader(const std::string& path, const std::string& base_dir) : path_(path), base_dir_(base_dir) {}

  // Names and paths come from the files: escaped, so each error stays one line.
  void Error(const std::string& where, const std::string& why) {
    errors_.push_back(render::Printable(path_ + ": " + where + ": " + why));
  }
  static std::string Field(const std::string& where, const char* key) {
    return where.empty() ? key : where + "." + key;
  }
  const std::vector<std::string>& errors() const { return errors_; }

  std::string String(const Json& o, const char* key, const std::string& where, bool required) {
    auto it = o.find(key);
    if (it == o.end()) {
      if (required) Error(Field(where, key), "required");
      return {};
    }
    if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
      Error(Field(where, key), "must be a non-empty string");
      return {};
    }
    return it->get<std::string>();
  }

  double Number(const Json& o, const char* key, const std::string& where, double lo, double hi) {
    auto it = o.find(key);
    if (it == o.end()) return 0;
    const double v = it->is_number() ? it->get<double>() : NAN;
    if (!(v >= lo && v <= hi)) {
      Error(Field(where, key), "must be a number in [" + Fmt(lo) + ", " + Fmt(hi) + "]");
      return 0;
    }
    return v;
  }

  void Disabled(const Json& o, const std::string& where, ChainService& s) {
    auto it = o.find("disable");
    if (it == o.end()) return;
    if (!it->is_object()) return Error(where + ".disable", "must be an object of rule id -> reason");
    for (const auto& [id, reason] : it->items()) {
      if (!IsRuleId(id)) Error(where + ".disable." + id, "unknown rule id");
      else if (!reason.is_string() || reason.get_ref<const std::string&>().empty())
        Error(where + ".disable." + id, "needs a reason (a non-empty string)");
      else s.disabled.emplace(id, reason.get<std::string>());
    }
  }

  // Each file is read and parsed once, however many services name it (by
  // any path or link), and the services share it; the distinct files
  // together hold at most kMaxChainConfigBytes. A file's errors are
  // reported at the first service that names it.
  void Config(ChainService& s, const std::string& where) {
    if (s.config_path.empty()) return;
    const std::string file = s.config_path.front() == '/' ? s.config_path : base_dir_ + "/" + s.config_path;
    Result<cli::InputFile> in = cli::ReadInputFile(file);
    if (!in.ok()) return Error(where + ".config", in.status().message());
    auto [it, fresh] = configs_.try_emplace({in->device, in->inode});
    if (!fresh) {
      s.config = it->second;
      return;
    }
    config_bytes_ += in->text.size();
    if (config_bytes_ > kMaxChainConfigBytes) {
      return Error(where + ".config", s.config_path + ": the chain's config files together are larger than " +
                                          std::to_string(kMaxChainConfigBytes) + " bytes (4 MiB)");
    }
    config::ParsedConfig parsed = config::ParseConfigText(in->text);
    for (const std::string& e : parsed.errors) Error(where + ".config", s.config_path + ": " + e);
    it->second = std::make_shared<const config::Config>(std::move(parsed.config));
    s.config = it->second;
  }

  // Findings and plans name services: two of one name would be told apart by nothing.
  void UniqueNames(const std::vector<ChainService>& services) {
    std::map<std::string_view, std::size_t> first;
    for (std::size_t i = 0; i < services.size(); ++i) {
      if (services[i].name.empty()) continue;  // already reported as missing
      const auto [at, fresh] = first.emplace(services[i].name, i);
      if (!fresh) {
        Error("services[" + std::to_string(i) + "].name",
              "\"" + services[i].name + "\" is already the name of services[" + std::to_string(at->second) + "]");
      }
    }
  }

  ChainService Service(const Json& o, const std::string& where, bool last) {
    ChainService s;
    if (!o.is_object()) {
      Error(where, "must be an object");
      return s;
    }
    for (const auto& [key, _] : o.items()) {
      if (key != "name" && key != "config" && key != "calls" && key != "method" && key != "rate" && key != "disable")
        Error(where + "." + key, "unknown field");
    }
    s.name = String(o, "name", where, true);
    s.config_path = String(o, "config", where, !last);
    s.calls = String(o, "calls", where, !last);
    if (last && !s.calls.empty()) Error(where + ".calls", "the last service calls nothing");
    s.method = String(o, "method", where, false);
    s.rate = Number(o, "rate", where, 0, kMaxRate);
    Disabled(o, where, s);
    Config(s, where);
    if (!s.calls.empty() && errors_.empty() && s.config && !s.config->destinations.contains(s.calls))
      Error(where + ".calls", "destination \"" + s.calls + "\" is not in " + s.config_path);
    return s;
  }

 private:
  static std::string Fmt(double v) {
    std::string t = std::to_string(v);
    t.erase(t.find_last_not_of('0') + 1);
    if (t.back() == '.') t.pop_back();
    return t;
  }

  std::string path_, base_dir_;
  std::vector<std::string> errors_;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::shared_ptr<const config::Config>> configs_;  // by file
  std::size_t config_bytes_ = 0;  // of the distinct files read
};

}  // namespace

Result<Chain> ParseChain(std::string_view text, const std::string& path, const std::string& base_dir) {
  // A key given twice would otherwise keep only its last value, silently.
  if (std::vector<std::string> e = config::CheckJsonText(text); !e.empty()) {
    return Status::InvalidArgument(render::Printable(path + ": " + e.front()));
  }
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);  // well-formed: checked
  if (!doc.is_object()) return Status::InvalidArgument(render::Printable(path) + ": must be a JSON object");
  Reader r(path, base_dir);
  Chain chain{.path = path, .hop_reserve = 0.1, .services = {}};
  for (const auto& [key, _] : doc.items()) {
    if (key != "services" && key != "hop_reserve") r.Error(key, "unknown field");
  }
  if (doc.contains("hop_reserve")) chain.hop_reserve = r.Number(doc, "hop_reserve", "", 0, 0.9);
  const auto it = doc.find("services");
  if (it == doc.end() || !it->is_array() || it->size() < 2 || it->size() > kMaxChainServices) {
    r.Error("services", "must list 2 to " + std::to_string(kMaxChainServices) + " services, caller first");
  } else {
    for (std::size_t i = 0; i < it->size(); ++i) {
      chain.services.push_back(r.Service((*it)[i], "services[" + std::to_string(i) + "]", i + 1 == it->size()));
    }
    r.UniqueNames(chain.services);
  }
  if (r.errors().empty()) return chain;
  std::string message;
  for (const std::string& e : r.errors()) message += (message.empty() ? "" : "\n") + e;
  return Status::InvalidArgument(std::move(message));
}

Result<Chain> LoadChain(const std::string& path) {
  Result<cli::InputFile> in = cli::ReadInputFile(path);
  if (!in.ok()) return Status::InvalidArgument(render::Printable(in.status().message()));
  const std::size_t slash = path.rfind('/');
  return ParseChain(in->text, path, slash == std::string::npos ? "." : path.substr(0, slash));
}

}  // namespace stormguard::lint
