// tools/lint/lint_rules.h: the rules of `stormguard lint`, pure functions
// over a parsed chain. Each rule has an id, a severity, a one-line message
// naming the service, the destination and the field, and a fix.
//
//   Result<std::vector<Hop>> hops = HopsOf(chain);
//   LintResult r = Lint(chain, *hops);   // r.findings, r.suppressed
//
// A rule disabled for a service (ChainService::disabled) still runs: its
// findings move to `suppressed` with the reason, so a report shows them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lint/lint_hop.h"

namespace stormguard::lint {

enum class Severity { kError, kWarning };
std::string_view SeverityName(Severity s) noexcept;  // "error", "warning"

struct Rule {
  std::string_view id;    // "SG001"
  std::string_view name;  // "retry-at-every-layer"
  Severity severity;
  std::string_view summary;  // what is wrong, in general
  std::string_view fix;      // what to change
};

// Every rule, by id.
const std::vector<Rule>& Rules();
bool IsRuleId(std::string_view id);
const Rule& RuleById(std::string_view id);  // id must be one of Rules()

struct Finding {
  std::string_view rule;  // its id
  std::string service;
  std::string destination;
  std::string field;       // the config field at fault, e.g. "pipeline.retry.backoff.jitter"
  std::string config;      // the config file of the service
  std::string message;     // one line, naming service, destination and field
  std::string suppressed;  // the reason, when the rule is disabled for the service
};

struct LintResult {
  std::vector<Finding> findings;
  std::vector<Finding> suppressed;
  bool has_errors() const;
};

LintResult Lint(const Chain& chain, const std::vector<Hop>& hops);

}  // namespace stormguard::lint
