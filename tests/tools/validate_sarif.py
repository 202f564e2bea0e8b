#!/usr/bin/env python3
"""Validates a SARIF log against the SARIF 2.1.0 JSON schema (Draft 7).

  validate_sarif.py SCHEMA LOG                 exit 0 when LOG is valid, 1 with every error
  validate_sarif.py SCHEMA LOG --cli CMD...    runs CMD, validates what it printed on stdout
  validate_sarif.py SCHEMA --self-check        exit 0 only when broken logs are rejected

A missing jsonschema module is an error (exit 2), never a skip: without it
nothing would be checked. Debian's python3-jsonschema with python3-rfc3987
(for the uri formats) is what scripts/install-deps.sh installs.
"""
import copy
import json
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("validate_sarif: the python3 jsonschema module is missing; "
             "install python3-jsonschema (scripts/install-deps.sh does)")


def load_validator(schema_path):
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    if cls is not jsonschema.Draft7Validator:
        sys.exit(f"validate_sarif: {schema_path} is not a Draft 7 schema")
    cls.check_schema(schema)
    # Formats are checked too: artifact locations must be URI references.
    checker = getattr(cls, "FORMAT_CHECKER", None) or jsonschema.draft7_format_checker
    if "uri-reference" not in checker.checkers:
        sys.exit("validate_sarif: this jsonschema cannot check URIs; install python3-rfc3987")
    return cls(schema, format_checker=checker)


def path_of(error):
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)


def errors_of(validator, log):
    """One line per error: the JSON path of the offending value and the reason."""
    errors = sorted(validator.iter_errors(log), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{path_of(e)}: {e.message}" for e in errors]


def report(name, errors):
    for line in errors:
        print(f"{name}: {line}")
    print(f"{name}: {'valid' if not errors else f'{len(errors)} error(s)'} SARIF 2.1.0")
    return 1 if errors else 0


def self_check(validator):
    """Each broken copy of a minimal valid log must be rejected."""
    good = {"version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "t"}},
                      "results": [{"ruleId": "R1", "level": "error", "message": {"text": "m"}}]}]}
    broken = {
        "level fatal": lambda log: log["runs"][0]["results"][0].update(level="fatal"),
        "no version": lambda log: log.pop("version"),
        "no message": lambda log: log["runs"][0]["results"][0].pop("message"),
        "unknown property": lambda log: log["runs"][0].update(findings=[]),
        "uri with a space": lambda log: log["runs"][0]["results"][0].update(
            locations=[{"physicalLocation": {"artifactLocation": {"uri": "my config.json"}}}]),
    }
    failed = 0
    if errors_of(validator, good):
        print("self-check: the minimal valid log was rejected:", errors_of(validator, good))
        failed += 1
    for name, breakage in broken.items():
        log = copy.deepcopy(good)
        breakage(log)
        errors = errors_of(validator, log)
        print(f"self-check: {name}: {'rejected: ' + errors[0] if errors else 'ACCEPTED'}")
        failed += not errors
    return 1 if failed else 0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    validator = load_validator(argv[1])
    if argv[2] == "--self-check":
        return self_check(validator)
    if argv[2] == "--cli":
        # lint exits 1 when it finds errors; what matters here is its output.
        run = subprocess.run(argv[3:], capture_output=True, text=True, timeout=60)
        if run.returncode not in (0, 1):
            sys.exit(f"validate_sarif: {' '.join(argv[3:])} failed ({run.returncode}): {run.stderr}")
        name, text = " ".join(argv[3:]), run.stdout
    else:
        name = argv[2]
        with open(name, encoding="utf-8") as f:
            text = f.read()
    try:
        log = json.loads(text)
    except json.JSONDecodeError as e:
        print(f"{name}: not JSON: {e}")
        return 1
    return report(name, errors_of(validator, log))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
