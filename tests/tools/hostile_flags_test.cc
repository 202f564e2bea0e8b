// Every subcommand of the built `stormguard` binary, fed hostile numbers:
// zero, negative, NaN, infinities, huge values, tiny units and sums that
// overflow. Each must be refused before any work: exit status 2, nothing on
// stdout, one line on stderr naming the flag, within a CPU, wall-clock and
// memory bound (so a crash, a std::bad_alloc or a run without end fails).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/bounded_run.h"

namespace stormguard::testkit {
namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(HostileFlagsTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

TEST(HostileFlagsTest, Backoff) {
  ExpectRefused({{"backoff --base 9223372036s", "--base: must be at most 1000h, got \"9223372036s\""},
                 {"backoff --cap 0", "--cap"},
                 {"backoff --base nan", "--base"},
                 {"backoff --multiplier nan", "--multiplier: 'nan' is not a finite number"},
                 {"backoff --multiplier inf", "--multiplier: 'inf' is not a finite number"},
                 {"backoff --multiplier 1e308", "--multiplier"},
                 {"backoff --retries 0", "--retries"},
                 {"backoff --retries 99999999999", "--retries"},
                 {"backoff --seed -1", "--seed"},
                 {"backoff --seed 99999999999999999999999", "--seed"}});
}

TEST(HostileFlagsTest, SimulateStorm) {
  ExpectRefused({{"simulate storm --bucket 1ns --cap 1h --base 1h", "--bucket: "},
                 {"simulate storm --bucket 1ns", "--bucket: "},
                 {"simulate storm --bucket 0", "--bucket"},
                 {"simulate storm --clients 10000000 --retries 999", "--clients: "},
                 {"simulate storm --clients 100000 --retries 999", "--clients: "},
                 {"simulate storm --clients 0", "--clients"},
                 {"simulate storm --clients -1", "--clients"},
                 {"simulate storm --retries -1", "--retries"},
                 {"simulate storm --cap 9223372036s", "--cap"},
                 {"simulate storm --base 1000000h --cap 1000000h", "--base"},
                 {"simulate storm --seed -1", "--seed: '-1'"}});
}

TEST(HostileFlagsTest, SimulateDeadlineAndBudget) {
  ExpectRefused({{"simulate deadline --max-tokens nan", "--max-tokens: 'nan'"},
                 {"simulate deadline --token-ratio inf", "--token-ratio: 'inf'"},
                 {"simulate deadline --max-attempts 0", "--max-attempts"},
                 {"simulate deadline --budget 0", "--budget"},
                 {"simulate deadline --call 1000000h", "--call"},
                 {"simulate deadline --seed -1", "--seed"},
                 {"simulate budget --rate nan", "--rate: 'nan'"},
                 {"simulate budget --rate inf", "--rate: 'inf'"},
                 {"simulate budget --rate -1", "--rate"},
                 {"simulate budget --rate 1e400", "--rate"},
                 {"simulate budget --failure-rate nan", "--failure-rate"},
                 {"simulate budget --duration 1000000h", "--duration"},
                 {"simulate budget --duration 999h", "--duration: "},
                 {"simulate budget --bucket 1ns", "--bucket: "},
                 {"simulate budget --latency 999h --rate 1000", "--rate: "}});
}

TEST(HostileFlagsTest, SimulateChain) {
  ExpectRefused({{"simulate chain --layers 16 --retries 100", "--retries: "},
                 {"simulate chain --layers 17", "--layers"},
                 {"simulate chain --duration 999h", "--duration: "},
                 {"simulate chain --bucket 1ns", "--bucket: "},
                 {"simulate chain --rate nan", "--rate"},
                 {"simulate chain --rate 1e7 --duration 1s --control all", "--duration: "},
                 {"simulate chain --timeout 999h --failure hang --control none --duration 1s", "--rate: "},
                 {"simulate chain --failure-rate -0.5", "--failure-rate"},
                 {"simulate chain --timeout 0", "--timeout"},
                 {"simulate chain --seed -1", "--seed"}});
}

TEST(HostileFlagsTest, SimulateMetastable) {
  ExpectRefused({{"simulate metastable --trigger-at 9223372036s --trigger-for 9223372036s", "--trigger-at"},
                 {"simulate metastable --trigger-at 999h --trigger-for 999h", "--duration: "},
                 {"simulate metastable --duration 999h", "--duration: "},
                 {"simulate metastable --bucket 1ns", "--bucket: "},
                 {"simulate metastable --load nan", "--load"},
                 {"simulate metastable --drop inf", "--drop"},
                 {"simulate metastable --workers 100000 --latency 1ns", "--duration: "},
                 {"simulate metastable --queue 100000000", "--queue: "},
                 {"simulate metastable --layers 8 --retries 100", "--retries: "},
                 {"simulate metastable --seed -1", "--seed"}});
}

TEST(HostileFlagsTest, SimulateContention) {
  ExpectRefused({{"simulate contention --clients 100000", "--clients: "},
                 {"simulate contention --runs 100000", "--runs: "},
                 {"simulate contention --clients 0", "--clients"},
                 {"simulate contention --network 1000000h", "--network"},
                 {"simulate contention --base 9223372036s", "--base"},
                 {"simulate contention --seed -1", "--seed"}});
}

TEST(HostileFlagsTest, SimulateHedge) {
  ExpectRefused({{"simulate hedge --leaves 0", "--leaves"},
                 {"simulate hedge --leaves 100000", "--leaves"},
                 {"simulate hedge --requests 0", "--requests"},
                 {"simulate hedge --requests 100000 --leaves 100", "--requests: "},
                 {"simulate hedge --wait-for 0", "--wait-for: "},
                 {"simulate hedge --wait-for 1.5", "--wait-for"},
                 {"simulate hedge --wait-for nan", "--wait-for: 'nan'"},
                 {"simulate hedge --quantile 1", "--quantile: "},
                 {"simulate hedge --delay -1ms", "--delay"},
                 {"simulate hedge --delay 1h --rate 1000", "--rate: "},
                 {"simulate hedge --tail-share -0.1", "--tail-share"},
                 {"simulate hedge --tail-share 0.6 --stall-share 0.6", "--tail-share: "},
                 {"simulate hedge --min 5ms --max 1ms", "--max: "},
                 {"simulate hedge --max-extra-load inf", "--max-extra-load"},
                 {"simulate hedge --seed -1", "--seed"}});
}

TEST(HostileFlagsTest, Demo) {
  ExpectRefused({{"demo --rate nan", "--rate: 'nan' is not a finite number"},
                 {"demo --rate inf", "--rate"},
                 {"demo --rate -inf", "--rate"},
                 {"demo --rate 0", "--rate"},
                 {"demo --rate 1e9", "--rate"},
                 {"demo --healthy 1000000h", "--healthy"},
                 {"demo --down 0", "--down"},
                 {"demo --soak 1000000h", "--soak"},
                 {"demo --soak 2h", "--soak: '2h' is not between 500ms and 1h"},
                 {"demo --seed -1", "--seed"}});
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::testkit
