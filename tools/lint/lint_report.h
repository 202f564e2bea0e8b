// tools/lint/lint_report.h: the findings of `stormguard lint` as text for a
// person, as JSON, or as SARIF 2.1.0 (one run, one result per finding, the
// rules in the driver, the config file as the location), so code-review
// tools show them.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "lint/lint_rules.h"

namespace stormguard::lint {

// One line per finding, "SG002 warning A -> relay: ...\n  fix: ...", then a count.
std::string LintText(const LintResult& r);
// {"findings": [{"rule", "severity", "service", "destination", "field", "config", "message", "fix"}],
//  "suppressed": [... + "reason"], "errors": n, "warnings": n}
nlohmann::ordered_json LintJson(const LintResult& r);
nlohmann::ordered_json LintSarif(const LintResult& r, const std::string& version);
// A config path as SARIF's artifactLocation.uri, a URI reference: every byte
// but the unreserved ones and '/' is percent-encoded, so "my config.json",
// "100%.json" or "a:b.json" (read as a scheme otherwise) stay valid.
std::string PathAsUriReference(std::string_view path);

}  // namespace stormguard::lint
