// `stormguard config watch --etcd` against a real etcd on loopback
// (etcd_process.h): the built CLI prints each put as a version accepted or
// rejected. `timeout` bounds the CLI, so a hung watcher ends the read.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "etcd_process.h"

namespace stormguard::config_sources {
namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(ConfigWatchEtcdTest, NeedsTheCli) { GTEST_SKIP() << "built without the stormguard CLI"; }

#else

std::string Doc(int attempts) {
  return R"({"destinations": {"inventory": {"pipeline": {"stages": [{"retry": {"max_attempts": )" +
         std::to_string(attempts) + "}}]}}}}";
}

// The next line of `pipe` without its newline; "" at EOF.
std::string NextLine(FILE* pipe) {
  char buf[1024];
  if (fgets(buf, sizeof buf, pipe) == nullptr) return "";
  std::string line(buf);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

TEST(ConfigWatchEtcdTest, PrintsEachPutAsAVersionAcceptedOrRejected) {
  testing::EtcdProcess etcd;
  ASSERT_TRUE(etcd.Start()) << "etcd did not start (apt-get install etcd-server)";
  const std::int64_t r1 = etcd.Put("/sg/config", Doc(2));
  ASSERT_GT(r1, 0);
  const std::string cmd = std::string("timeout 20 '") + STORMGUARD_CLI_PATH + "' config watch --etcd " +
                          etcd.endpoint() + " --key /sg/config --count 3";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  EXPECT_EQ(NextLine(pipe), "version 1 accepted: etcd:/sg/config revision " + std::to_string(r1));
  const std::int64_t r2 = etcd.Put("/sg/config", Doc(0));
  EXPECT_EQ(NextLine(pipe), "rejected, version 1 stays: etcd:/sg/config revision " + std::to_string(r2));
  EXPECT_EQ(NextLine(pipe), "  destinations.inventory.pipeline.stages[0].retry.max_attempts: must be at least 1");
  const std::int64_t r3 = etcd.Put("/sg/config", Doc(3));
  EXPECT_EQ(NextLine(pipe), "version 2 accepted: etcd:/sg/config revision " + std::to_string(r3));
  EXPECT_EQ(NextLine(pipe), "");
  const int raw = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << raw;
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::config_sources
