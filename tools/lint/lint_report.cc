#include "lint/lint_report.h"

#include <algorithm>

#include "render/printable.h"

namespace stormguard::lint {
namespace {

using OJson = nlohmann::ordered_json;

std::size_t Count(const LintResult& r, Severity s) {
  return static_cast<std::size_t>(std::count_if(r.findings.begin(), r.findings.end(),
                                                [s](const Finding& f) { return RuleById(f.rule).severity == s; }));
}

OJson FindingJson(const Finding& f) {
  const Rule& rule = RuleById(f.rule);
  OJson j{{"rule", f.rule},       {"severity", SeverityName(rule.severity)},
          {"service", f.service}, {"destination", f.destination},
          {"field", f.field},     {"config", f.config},
          {"message", f.message}, {"fix", rule.fix}};
  if (!f.suppressed.empty()) j["reason"] = f.suppressed;
  return j;
}

}  // namespace

// Messages and reasons carry names from the files: escaped, one line each.
std::string LintText(const LintResult& r) {
  std::string out;
  for (const Finding& f : r.findings) {
    const Rule& rule = RuleById(f.rule);
    out += std::string(f.rule) + " " + std::string(SeverityName(rule.severity)) + " " + render::Printable(f.message) +
           "\n";
    out += "      fix: " + std::string(rule.fix) + "\n";
  }
  for (const Finding& f : r.suppressed) {
    out += std::string(f.rule) + " disabled " + render::Printable(f.message) + " (" + render::Printable(f.suppressed) +
           ")\n";
  }
  const std::size_t errors = Count(r, Severity::kError), warnings = Count(r, Severity::kWarning);
  out += std::to_string(errors) + " error" + (errors == 1 ? "" : "s") + ", " + std::to_string(warnings) + " warning" +
         (warnings == 1 ? "" : "s") + ", " + std::to_string(r.suppressed.size()) + " disabled\n";
  return out;
}

OJson LintJson(const LintResult& r) {
  OJson findings = OJson::array(), suppressed = OJson::array();
  for (const Finding& f : r.findings) findings.push_back(FindingJson(f));
  for (const Finding& f : r.suppressed) suppressed.push_back(FindingJson(f));
  return {{"findings", findings},
          {"suppressed", suppressed},
          {"errors", Count(r, Severity::kError)},
          {"warnings", Count(r, Severity::kWarning)}};
}

std::string PathAsUriReference(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (const char c : path) {
    const auto b = static_cast<unsigned char>(c);
    const bool keep = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '-' ||
                      b == '.' || b == '_' || b == '~' || b == '/';
    if (keep) {
      out += c;
    } else {
      out += '%';
      out += kHex[b >> 4];
      out += kHex[b & 0xF];
    }
  }
  return out;
}

OJson LintSarif(const LintResult& r, const std::string& version) {
  OJson rules = OJson::array();
  for (const Rule& rule : Rules()) {
    rules.push_back({{"id", rule.id},
                     {"name", rule.name},
                     {"shortDescription", {{"text", rule.summary}}},
                     {"help", {{"text", rule.fix}}},
                     {"defaultConfiguration", {{"level", SeverityName(rule.severity)}}}});
  }
  OJson results = OJson::array();
  auto add = [&](const Finding& f) {
    OJson result{{"ruleId", f.rule},
                 {"level", SeverityName(RuleById(f.rule).severity)},
                 {"message", {{"text", f.message + ". Fix: " + std::string(RuleById(f.rule).fix)}}},
                 {"locations",
                  {{{"physicalLocation", {{"artifactLocation", {{"uri", PathAsUriReference(f.config)}}}}},
                    {"logicalLocations", {{{"fullyQualifiedName", f.field}, {"kind", "member"}}}}}}}};
    if (!f.suppressed.empty()) {
      result["suppressions"] = {{{"kind", "external"}, {"justification", f.suppressed}}};
    }
    results.push_back(std::move(result));
  };
  for (const Finding& f : r.findings) add(f);
  for (const Finding& f : r.suppressed) add(f);
  OJson driver{{"name", "stormguard lint"}, {"version", version}, {"rules", rules}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", {{{"tool", {{"driver", driver}}}, {"results", results}}}}};
}

}  // namespace stormguard::lint
