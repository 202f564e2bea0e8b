// `stormguard config watch` fed hostile flags: a --poll out of range, etcd
// endpoints with a bad scheme, host or port, or a path, a --stale-after out
// of range. Each must be refused before the source starts (no retrying an
// endpoint that can never work): exit status 2, nothing on stdout, one line
// on stderr naming the right flag, within RunBounded's CPU, wall-clock and
// memory bounds.
#include <gtest/gtest.h>

#include <string>

#include "tools/bounded_run.h"

namespace stormguard::testkit {
namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(HostileWatchTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

const std::string kKey = " --key /sg/config";

TEST(HostileWatchTest, APollOutOfRangeIsBlamedOnPoll) {
  ExpectRefused({{"config watch --file /tmp/sg.json --poll 0s", "--poll: must be in [1ms, 1h]"},
                 {"config watch --file /tmp/sg.json --poll 2h", "--poll: must be in [1ms, 1h]"},
                 {"config watch --file /tmp/sg.json --poll 999us", "--poll: must be in [1ms, 1h]"}});
}

TEST(HostileWatchTest, AnEndpointIsCheckedBeforeAnyConnection) {
  ExpectRefused({{"config watch --etcd http://127.0.0.1:0" + kKey, "--etcd: port must be a number in [1, 65535]"},
                 {"config watch --etcd http://127.0.0.1:65536" + kKey, "--etcd: port must be"},
                 {"config watch --etcd http://127.0.0.1:99999999999" + kKey, "--etcd: port must be"},
                 {"config watch --etcd http://127.0.0.1:-1" + kKey, "--etcd: port must be"},
                 {"config watch --etcd http://127.0.0.1:" + kKey, "--etcd: port must be"},
                 {"config watch --etcd http://127.0.0.1:2379x" + kKey, "--etcd: port must be"},
                 {"config watch --etcd http://127.0.0.1:2379/v3" + kKey, "--etcd: must have no path"},
                 {"config watch --etcd http://127.0.0.1:2379/" + kKey, "--etcd: must have no path"},
                 {"config watch --etcd http://127.0.0.1:2379?a=b" + kKey, "--etcd: must have no path"},
                 {"config watch --etcd http://127.0.0.1:2379#f" + kKey, "--etcd: must have no path"},
                 {"config watch --etcd http://" + kKey, "--etcd: must have a host"},
                 {"config watch --etcd http://:2379" + kKey, "--etcd: must have a host"},
                 {"config watch --etcd http://a:b@h:2379" + kKey, "--etcd: must not carry a user name"},
                 {"config watch --etcd http://[::1:2379" + kKey, "--etcd: has a '[' without its ']'"},
                 {"config watch --etcd http://[zz]:2379" + kKey, "--etcd: must have an IPv6 address"},
                 {"config watch --etcd http://[::1]x" + kKey, "--etcd: must have only a port after ']'"},
                 {"config watch --etcd http://::1:2379" + kKey, "--etcd: must have a host"},
                 {"config watch --etcd ftp://127.0.0.1:2379" + kKey, "--etcd: must start with http://"},
                 {"config watch --etcd 127.0.0.1:2379" + kKey, "--etcd: must start with http://"}});
}

TEST(HostileWatchTest, AStaleBoundOutOfRangeIsBlamedOnStaleAfter) {
  ExpectRefused({{"config watch --etcd http://127.0.0.1:2379 --stale-after 1ms" + kKey,
                  "--stale-after: must be in [10ms, 24h]"},
                 {"config watch --etcd http://127.0.0.1:2379 --stale-after 25h" + kKey,
                  "--stale-after: must be in [10ms, 24h]"}});
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::testkit
