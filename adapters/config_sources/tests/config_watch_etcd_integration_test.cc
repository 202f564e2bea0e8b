// `stormguard config watch --etcd` against a real etcd on loopback
// (etcd_process.h): the built CLI prints each put as a version accepted or
// rejected. `timeout` bounds the CLI, so a hung watcher ends the read.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>
#include <utility>

#include "etcd_process.h"
#include "eventually.h"  // Doc
#include "temp_dir.h"
#include "test_certificates.h"

namespace stormguard::config_sources {
namespace {

#ifndef STORMGUARD_CLI_PATH

TEST(ConfigWatchEtcdTest, NeedsTheCli) { GTEST_SKIP() << "built without the stormguard CLI"; }

#else

using testkit::Doc;

// The next line of `pipe` without its newline; "" at EOF.
std::string NextLine(FILE* pipe) {
  char buf[1024];
  if (fgets(buf, sizeof buf, pipe) == nullptr) return "";
  std::string line(buf);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

TEST(ConfigWatchEtcdTest, PrintsEachPutAsAVersionAcceptedOrRejected) {
  testkit::EtcdProcess etcd;
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

// An etcd serving https to clients with a certificate from its CA, with
// authentication on and tokens that live a second: the CLI is who it says,
// and keeps following across token renewals.
TEST(ConfigWatchEtcdTest, FollowsAnEtcdWithTlsAndAuthentication) {
  testkit::TempDir dir;
  testkit::TestCertificates certs;
  ASSERT_TRUE(testkit::MakeTestCertificates(dir.path(), certs)) << "openssl failed (scripts/install-deps.sh)";
  testkit::EtcdProcess etcd;
  etcd.set_tls({certs.server_cert, certs.server_key, certs.ca, {certs.ca, certs.client_cert, certs.client_key, ""}});
  etcd.set_auth_token_ttl(1);
  ASSERT_TRUE(etcd.Start());
  ASSERT_TRUE(etcd.EnableAuth("app", "app-secret", "/sg/"));
  testkit::TempDir::WriteInPlace(dir.File("password"), "app-secret\n");
  const std::int64_t r1 = etcd.Put("/sg/config", Doc(2));
  ASSERT_GT(r1, 0);
  const std::string cmd = std::string("timeout 20 '") + STORMGUARD_CLI_PATH + "' config watch --etcd " +
                          etcd.endpoint() + " --key /sg/config --count 2 --cacert " + certs.ca + " --cert " +
                          certs.client_cert + " --cert-key " + certs.client_key + " --user app --password-file " +
                          dir.File("password") + " --token-ttl 1s";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  EXPECT_EQ(NextLine(pipe), "version 1 accepted: etcd:/sg/config revision " + std::to_string(r1));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // past two token lives: nothing to poll for
  const std::int64_t r2 = etcd.Put("/sg/config", Doc(3));
  EXPECT_EQ(NextLine(pipe), "version 2 accepted: etcd:/sg/config revision " + std::to_string(r2));
  EXPECT_EQ(NextLine(pipe), "");
  const int raw = pclose(pipe);
  EXPECT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << raw;
}

// Exit status and stderr of the CLI run with `args`.
std::pair<int, std::string> Refusal(const std::string& args) {
  const std::string cmd = std::string("timeout 10 '") + STORMGUARD_CLI_PATH + "' config watch " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  for (std::string line; !(line = NextLine(pipe)).empty();) out += line;
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

TEST(ConfigWatchEtcdTest, TlsAndAuthenticationFlagsAreCheckedBeforeAnyConnection) {
  testkit::TempDir dir;
  testkit::TempDir::WriteInPlace(dir.File("pem"), "x");
  testkit::TempDir::WriteInPlace(dir.File("empty"), "\n");
  const std::string etcd = "--key /sg/config --etcd ";
  const std::string pem = dir.File("pem");
  const std::pair<std::string, std::string> cases[] = {
      {etcd + "http://127.0.0.1:2379 --cacert " + pem, "--cacert: needs an https:// endpoint"},
      {etcd + "https://127.0.0.1:2379 --cacert " + dir.File("none"), "--cacert: \"" + dir.File("none") + "\" is not"},
      {etcd + "https://127.0.0.1:2379 --cert " + pem, "--cert-key: cert_file and key_file go together"},
      {etcd + "https://127.0.0.1:2379 --cert-key " + pem, "--cert: cert_file and key_file go together"},
      {etcd + "https://127.0.0.1:2379 --user app", "--user: --user and --password-file go together"},
      {etcd + "https://127.0.0.1:2379 --password-file " + pem, "--password-file: --user and --password-file"},
      {etcd + "https://127.0.0.1:2379 --user app --password-file " + dir.File("empty"), "--password-file: "},
      {etcd + "https://127.0.0.1:2379 --user app --password-file " + pem + " --token-ttl 0s",
       "--token-ttl: must be in [1s, 24h]"},
      {"--file " + pem + " --cacert " + pem, "--cacert: applies to --etcd only"},
  };
  for (const auto& [args, expected] : cases) {
    const auto [status, err] = Refusal(args);
    EXPECT_EQ(status, 2) << args;
    EXPECT_NE(err.find(expected), std::string::npos) << args << "\n" << err;
  }
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::config_sources
