#!/usr/bin/env bash
# Installs what stormguard builds and tests with, from Debian 12's packages,
# plus any packages named as arguments (scripts/fuzz.sh adds clang's,
# scripts/bench_http.sh adds wrk: a developer tool, never installed for CI).
# Idempotent and quiet when everything is already there; needs root.
set -euo pipefail
packages=(g++ cmake ninja-build pkg-config libgtest-dev libgmock-dev libbenchmark-dev
          libcli11-dev nlohmann-json3-dev libcurl4-openssl-dev libcpp-httplib-dev libasio-dev
          libgrpc++-dev libprotobuf-dev protobuf-compiler-grpc
          etcd-server redis-server libhiredis-dev
          openssl prometheus python3-jsonschema python3-rfc3987 clang-format-14 git "$@")
# etcd: the live-reload integration tests start one on loopback, and the openssl
# CLI makes their TLS certificates; redis-server and hiredis: the fleet-wide
# limits keep their shares in Redis, and their tests start one; prometheus:
# its promtool lints the /metrics scrape; jsonschema + rfc3987: lint's SARIF output is validated against the
# official schema; clang-format-14 and git: scripts/check-format.sh checks
# the files git tracks.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
