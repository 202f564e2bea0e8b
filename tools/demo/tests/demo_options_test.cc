#include "demo/demo_options.h"
#include "demo/live_config.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

TEST(DemoOptionsTest, DefaultRunHasThreePhasesWithASettleBeforeTheOutage) {
  const std::vector<Phase> phases = DemoOptions{}.Phases();
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].name, "healthy");
  EXPECT_EQ(phases[1].name, "down");
  EXPECT_TRUE(phases[1].bottom_down);
  EXPECT_EQ(phases[2].name, "recovered");
}

TEST(DemoOptionsTest, SoakIsOneHealthyPhaseWhateverTheOtherLengths) {
  const std::vector<Phase> phases = DemoOptions{.healthy = 3s, .soak = 120s}.Phases();
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].name, "soak");
  EXPECT_EQ(phases[0].length, 120s);
  EXPECT_FALSE(phases[0].bottom_down);
  EXPECT_EQ(phases[0].settle, 0s);
}

TEST(DemoOptionsTest, ServicesLiveAsLongAsThePhasesPlusTheSlack) {
  // 6 s healthy, 1 s settle, 4 s down, 6 s recovered.
  EXPECT_EQ(ServiceLifetime(DemoOptions{}.Phases()), 17s + kLifetimeSlack);
  EXPECT_EQ(ServiceLifetime(DemoOptions{.soak = kMaxPhase}.Phases()), kMaxPhase + kLifetimeSlack);
  const DemoOptions longest{.healthy = kMaxPhase, .down = kMaxPhase, .recovered = kMaxPhase};
  EXPECT_EQ(ServiceLifetime(longest.Phases()), 3 * kMaxPhase + kSettleBeforeOutage + kLifetimeSlack);
}

TEST(DemoOptionsTest, AFleetRunsHealthyGrayAndHealed) {
  const DemoOptions o{.healthy = 2s, .fleet = {.replicas = 3, .gray = 5s, .healed = 4s}};
  const std::vector<Phase> phases = o.Phases();
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_EQ(phases[0].name, "healthy");
  EXPECT_EQ(phases[1].name, "gray");
  EXPECT_TRUE(phases[1].gray);
  EXPECT_EQ(phases[1].length, 5s);
  EXPECT_EQ(phases[2].name, "healed");
  EXPECT_EQ(phases[2].length, 4s);
  for (const Phase& p : phases) EXPECT_FALSE(p.bottom_down);
  EXPECT_FALSE(DemoOptions{}.Phases()[1].gray);  // one replica: today's three phases
}

TEST(FleetOptionsTest, RefusesValuesOutOfRangeNamingTheFlag) {
  EXPECT_TRUE(FleetOptions{}.Validate().empty());
  EXPECT_TRUE((FleetOptions{.replicas = kMaxReplicas, .share = 1}.Validate().empty()));
  const auto first = [](const FleetOptions& f) {
    const std::vector<std::string> errors = f.Validate();
    return errors.empty() ? std::string() : errors.front();
  };
  EXPECT_EQ(first({.replicas = 0}).rfind("--replicas:", 0), 0u);
  EXPECT_EQ(first({.replicas = kMaxReplicas + 1}).rfind("--replicas:", 0), 0u);
  EXPECT_EQ(first({.gray = 100ms}).rfind("--gray:", 0), 0u);
  EXPECT_EQ(first({.healed = 2h}).rfind("--healed:", 0), 0u);
  EXPECT_EQ(first({.share = std::nan("")}).rfind("--gray-share:", 0), 0u);
  EXPECT_EQ(first({.share = -0.1}).rfind("--gray-share:", 0), 0u);
  EXPECT_EQ(first({.share = 1.5}).rfind("--gray-share:", 0), 0u);
  EXPECT_EQ(first({.latency = 0s}).rfind("--gray-latency:", 0), 0u);
  EXPECT_EQ(first({.latency = 11s}).rfind("--gray-latency:", 0), 0u);
}

TEST(FleetOptionsTest, RefusesFlagsThatDoNotGoWithTheReplicaCount) {
  const FleetOptions one, three{.replicas = 3};
  EXPECT_TRUE(FleetConflicts(one, {.down = true, .recovered = true, .soak = true, .grpc = true}).empty());
  EXPECT_TRUE(FleetConflicts(three, {}).empty());
  ASSERT_EQ(FleetConflicts(one, {.gray_flags = true}).size(), 1u);
  EXPECT_NE(FleetConflicts(one, {.gray_flags = true})[0].find("only with --replicas"), std::string::npos);
  const std::vector<std::string> errors =
      FleetConflicts(three, {.down = true, .recovered = true, .soak = true, .grpc = true});
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].rfind("--down:", 0), 0u);
  EXPECT_EQ(errors[1].rfind("--recovered:", 0), 0u);
  EXPECT_EQ(errors[2].rfind("--soak:", 0), 0u);
  EXPECT_EQ(errors[3].rfind("--transport:", 0), 0u);
}

TEST(ConfigSourceFlagsTest, HandsTheSourceOnToEachService) {
  EXPECT_TRUE(ConfigSourceFlags{}.Args().empty());
  EXPECT_EQ(ConfigSourceFlags{.file = "/etc/p.json"}.Args(), (std::vector<std::string>{"--config", "/etc/p.json"}));
  EXPECT_EQ((ConfigSourceFlags{.etcd = "http://127.0.0.1:2379", .key = "/p"}.Args()),
            (std::vector<std::string>{"--etcd", "http://127.0.0.1:2379", "--key", "/p"}));
}

TEST(ConfigSourceFlagsTest, RefusesWhatCannotBeFollowedNamingTheFlag) {
  EXPECT_TRUE(ConfigSourceFlags{}.Validate().empty());
  EXPECT_TRUE((ConfigSourceFlags{.etcd = "http://127.0.0.1:2379", .key = "/p"}.Validate().empty()));
  const auto first = [](const ConfigSourceFlags& f) {
    const std::vector<std::string> errors = f.Validate();
    return errors.empty() ? std::string() : errors.front();
  };
  EXPECT_EQ(first({.file = "a.json", .etcd = "http://x", .key = "/p"}).rfind("--config and --etcd", 0), 0u);
  EXPECT_EQ(first({.etcd = "http://x"}).rfind("--key: needed with --etcd", 0), 0u);
  EXPECT_EQ(first({.file = "a.json", .key = "/p"}).rfind("--key: only with --etcd", 0), 0u);
  EXPECT_EQ(first({.file = "a.json", .cacert = "ca.pem"}), "--cacert: only with --etcd");
  EXPECT_EQ(first({.etcd = "https://x", .key = "/p", .cert = "c.pem"}), "--cert and --cert-key: give both or neither");
  EXPECT_EQ(first({.etcd = "http://x", .key = "/p", .user = "app"}),
            "--user and --password-file: give both or neither");
}

TEST(ConfigSourceFlagsTest, HandsTlsAndAuthenticationOnButNeverThePassword) {
  const ConfigSourceFlags f{.etcd = "https://127.0.0.1:2379",
                            .key = "/p",
                            .cacert = "/ca.pem",
                            .cert = "/c.pem",
                            .cert_key = "/c.key",
                            .user = "app",
                            .password_file = "/pw"};
  EXPECT_TRUE(f.Validate().empty());
  EXPECT_EQ(f.Args(), (std::vector<std::string>{"--etcd", "https://127.0.0.1:2379", "--key", "/p", "--cacert",
                                                "/ca.pem", "--cert", "/c.pem", "--cert-key", "/c.key", "--user", "app",
                                                "--password-file", "/pw"}));
}

TEST(LiveConfigTest, APasswordFileThatIsNoRegularSmallFileIsRefusedAtOnce) {
  config::Registry registry;
  for (const char* path : {"/dev/zero", "/nonexistent/password"}) {
    const ConfigSourceFlags f{.etcd = "http://127.0.0.1:1", .key = "/p", .user = "app", .password_file = path};
    const Result<std::unique_ptr<LiveConfig>> live = LiveConfig::Start(f, registry);
    ASSERT_FALSE(live.ok()) << path;
    EXPECT_NE(live.status().message().find("--password-file"), std::string::npos) << live.status().ToString();
  }
}

}  // namespace
}  // namespace stormguard::demo
