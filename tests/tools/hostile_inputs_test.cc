// The files the built `stormguard` binary reads, made hostile: a FIFO, a
// directory, /proc/self/mem, a config that expands a thousandfold, one big
// config named by every service of a 64-service chain, names holding NUL
// and escape bytes, bytes after the document. Each is refused with one line
// naming the path and the reason (exit status 2) or answered correctly,
// within the CPU, wall-clock and memory bound of RunBounded, so a hang, a
// crash or a std::bad_alloc fails the test (docs/cli.md, "Input files").
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/bounded_run.h"

namespace stormguard::testkit {
namespace {
using ::testing::EndsWith;
using ::testing::HasSubstr;

#ifndef STORMGUARD_CLI_PATH

TEST(HostileInputsTest, NeedsTheBinaryPath) {
  GTEST_SKIP() << "define STORMGUARD_CLI_PATH (tests/CMakeLists.txt) to run the CLI tests";
}

#else

std::size_t Lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// The run ended by itself with `status`; a signal (the alarm, SIGABRT) fails.
void ExpectExit(const BoundedRun& run, int status, const std::string& what) {
  ASSERT_TRUE(WIFEXITED(run.wait_status)) << what << ": killed by signal " << WTERMSIG(run.wait_status);
  EXPECT_EQ(WEXITSTATUS(run.wait_status), status) << what << ": " << run.err.substr(0, 400);
}

// Exit status 2, nothing on stdout, one line on stderr holding each of `parts`.
void ExpectRefusedWithin(const std::string& args, const std::vector<std::string>& parts,
                         std::size_t memory_mib = 1024) {
  const BoundedRun run = RunBounded(args, memory_mib);
  ExpectExit(run, 2, args);
  EXPECT_EQ(run.out, "") << args;
  EXPECT_EQ(Lines(run.err), 1u) << args << ": " << run.err.substr(0, 400);
  for (const std::string& p : parts) EXPECT_THAT(run.err, HasSubstr(p)) << args;
}

// A valid config of about `bytes` holding destination "d" and as many
// others as fit, each with 10,000 empty method entries: some 65 bytes of
// memory per byte of text once parsed.
std::string BigConfig(std::size_t bytes) {
  std::string text = R"({"destinations": {"d": {})";
  for (int d = 0; text.size() < bytes;) {
    text += ",\"x" + std::to_string(d++) + R"(": {"methods": {)";
    for (int m = 0; m < 10'000 && text.size() < bytes; ++m) text += (m ? ",\"" : "\"") + std::to_string(m) + "\": {}";
    text += "}}";
  }
  return text + "}}";
}

class HostileInputsTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name), std::ios::binary) << text;
    return Path(name);
  }
  std::string Fifo(const std::string& name) {
    EXPECT_EQ(::mkfifo(Path(name).c_str(), 0600), 0);
    return Path(name);
  }
  // A chain of `n` services, each but the last calling "d" of `config`.
  std::string Chain(const std::string& name, std::size_t n, const std::string& config) {
    std::string text = R"({"services": [)";
    for (std::size_t i = 0; i + 1 < n; ++i) {
      text += R"({"name": "S)" + std::to_string(i) + R"(", "config": ")" + config + R"(", "calls": "d"},)";
    }
    return Write(name, text + R"({"name": "leaf"}]})");
  }
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

 private:
  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("stormguard_hostile_inputs_" + std::to_string(::getpid()));
};

// open() of a FIFO waits for a writer, forever: refused without opening it.
TEST_F(HostileInputsTest, AFifoIsRefusedWithoutWaiting) {
  const std::string fifo = Fifo("fifo.json");
  for (const char* cmd : {"config check ", "config show ", "lint ", "plan "}) {
    ExpectRefusedWithin(cmd + fifo, {fifo + ": not a regular file (a FIFO)"});
  }
  for (const char* cmd : {"lint ", "plan "}) {
    ExpectRefusedWithin(cmd + Chain("chain.json", 2, "fifo.json"),
                        {"chain.json: services[0].config: ", "fifo.json: not a regular file (a FIFO)"});
  }
}

// Neither reads as an empty document ("parse error ... unexpected end of input").
TEST_F(HostileInputsTest, ADirectoryOrAnUnreadableFileIsAReadError) {
  std::filesystem::create_directories(Path("dir.json"));
  ExpectRefusedWithin("config check " + Path("dir.json"), {Path("dir.json") + ": not a regular file (a directory)"});
  ExpectRefusedWithin("config show /proc/self/mem", {"/proc/self/mem: cannot read: Input/output error"});
  ExpectRefusedWithin("lint " + Chain("chain.json", 2, "dir.json"),
                      {"services[0].config: ", "dir.json: not a regular file (a directory)"});
  ExpectRefusedWithin("plan " + Chain("proc.json", 2, "/proc/self/mem"), {"/proc/self/mem: cannot read: "});
  ExpectRefusedWithin("config check " + Path("missing.json"), {"missing.json: cannot open: No such file or directory"});
}

// The reader stops one byte past 4 MiB, even when the size says otherwise.
TEST_F(HostileInputsTest, AFileOverFourMebibytesIsRefusedBySize) {
  const std::string big = Write("big.json", std::string((4u << 20) + 1, ' '));
  ExpectRefusedWithin("config check " + big, {big + ": larger than 4194304 bytes (4 MiB)"});
  ExpectRefusedWithin("lint " + big, {big + ": larger than 4194304 bytes"});
}

// One destination with 10,000 methods, 18 lines each: quadratic, `show`
// took 20 s of CPU.
TEST_F(HostileInputsTest, ShowIsLinearInTheMethods) {
  std::string text = R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {}}]}, "methods": {)";
  for (int i = 10'000; i < 20'000; ++i) {
    text += (i > 10'000 ? ",\"" : "\"") + ("GET /api/v1/inventory/warehouses/items/" + std::to_string(i)) +
            R"(": {"retry": {}})";
  }
  const std::string f = Write("methods.json", text + "}}}}");
  const BoundedRun table = RunBounded("config show " + f);
  ExpectExit(table, 0, "config show");
  const std::size_t last = table.out.find("    GET /api/v1/inventory/warehouses/items/19999  overrides.retry ");
  ASSERT_NE(last, std::string::npos);
  EXPECT_EQ(table.out.substr(table.out.find(" replaces", last)), " replaces stages[0]\n");
  const std::size_t methods = table.out.find("  methods\n");
  ASSERT_NE(methods, std::string::npos);
  EXPECT_EQ(Lines(table.out.substr(methods)), 1u + 180'000u);
  const BoundedRun json = RunBounded("config show --json " + f);
  ExpectExit(json, 0, "config show --json");
  EXPECT_THAT(json.out, HasSubstr(R"("GET /api/v1/inventory/warehouses/items/19999": {)"));
  EXPECT_THAT(json.out, EndsWith("\n  }\n}\n"));
}

// 64 services naming one config: parsed once, not 64 times (2 GB).
TEST_F(HostileInputsTest, AConfigNamedByEveryServiceIsParsedOnce) {
  Write("big.json", BigConfig(512u << 10));
  const std::string chain = Chain("chain.json", 64, "big.json");
  const BoundedRun lint = RunBounded("lint " + chain);
  ExpectExit(lint, 0, "lint");
  EXPECT_EQ(lint.out, "0 errors, 0 warnings, 0 disabled\n");
  const BoundedRun plan = RunBounded("plan " + chain);
  ExpectExit(plan, 0, "plan");
  EXPECT_THAT(plan.out, HasSubstr("leaf"));
}

// Distinct files each under 4 MiB: together they may not pass 4 MiB.
TEST_F(HostileInputsTest, TheChainsConfigsTogetherHoldAtMostFourMebibytes) {
  const std::string padded = R"({"destinations": {"d": {}}})" + std::string(3u << 20, ' ');
  Write("one.json", padded);
  Write("two.json", padded);
  ExpectRefusedWithin("lint " + Write("chain.json", R"({"services": [{"name": "A", "config": "one.json", "calls": "d"},
      {"name": "B", "config": "two.json", "calls": "d"}, {"name": "C"}]})"),
                      {"chain.json: services[1].config: two.json: the chain's config files together are larger than "
                       "4194304 bytes"});
}

// A NUL in a name truncated the output (exit 0); an escape sequence reached the terminal.
TEST_F(HostileInputsTest, ControlBytesInNamesAreEscaped) {
  const std::string f = Write("nul.json", R"({"destinations": {"d\u0000x\u001b[2J": {"methods": {"m\n": {}}}}})");
  const BoundedRun show = RunBounded("config show " + f);
  ExpectExit(show, 0, "config show");
  EXPECT_THAT(show.out, HasSubstr("destination d\\x00x\\x1b[2J\n"));
  EXPECT_THAT(show.out, HasSubstr("    m\\x0a  overrides  (none)\n"));
  EXPECT_EQ(show.out.find_first_of(std::string("\0\x1b", 2)), std::string::npos);

  const std::string named = Write("ok\x1b[2J.json", R"({"destinations": {}})");
  const BoundedRun check = RunBounded("config check " + named);
  ExpectExit(check, 0, "config check");
  EXPECT_THAT(check.out, HasSubstr("ok\\x1b[2J.json: ok, stormguard config, 0 destinations\n"));

  Write("e.json", R"({"destinations": {"e": {}}})");
  ExpectRefusedWithin("lint " + Write("bad.json", R"({"services": [{"name": "A", "config": "e.json",
      "calls": "e\u0000\n\u001b[2J", "disable": {"SG\u0007": "x"}}, {"name": "B"}]})"),
                      {"services[0].disable.SG\\x07: unknown rule id"});
  ExpectRefusedWithin("lint " + Write("calls.json", R"({"services": [{"name": "A", "config": "e.json",
      "calls": "e\u0000\n\u001b[2J"}, {"name": "B"}]})"),
                      {"services[0].calls: destination \"e\\x00\\x0a\\x1b[2J\" is not in e.json"});

  Write("a.json", R"({"destinations": {"d": {"pipeline": {"stages": [{"retry": {"backoff": {"jitter": "none"}}}]}}}})");
  const BoundedRun lint = RunBounded("lint " + Write("chain.json", R"({"services": [
      {"name": "A\u0000\u001b[31m", "config": "a.json", "calls": "d"}, {"name": "B"}]})"));
  ExpectExit(lint, 0, "lint");
  EXPECT_THAT(lint.out, HasSubstr("A\\x00\\x1b[31m -> d"));
  EXPECT_THAT(lint.out, EndsWith(" disabled\n"));
  EXPECT_EQ(lint.out.find_first_of(std::string("\0\x1b", 2)), std::string::npos);

  const BoundedRun plan = RunBounded("plan " + Write("plan.json", R"({"services": [
      {"name": "A\u0000\u001b[31m", "config": "a.json", "calls": "d"}, {"name": "B"}]})"));
  ExpectExit(plan, 0, "plan");
  EXPECT_THAT(plan.out, HasSubstr("A\\x00\\x1b[31m "));
  EXPECT_EQ(plan.out.find_first_of(std::string("\0\x1b", 2)), std::string::npos);
}

// Every command ran into SIGABRT on std::bad_alloc. Checking 4 MiB of
// empty method entries takes some 270 MB: under a 128 MiB address-space
// limit it runs out.
TEST_F(HostileInputsTest, OutOfMemoryIsExitTwoNamingTheCommand) {
  if (bounded_run_internal::kSanitized) GTEST_SKIP() << "a sanitizer's allocator dies rather than throw";
  constexpr std::size_t kMib = 128;
  const BoundedRun start = RunBounded("--version", kMib);
  if (!WIFEXITED(start.wait_status) || WEXITSTATUS(start.wait_status) != 0) GTEST_SKIP() << "the CLI needs more";
  ExpectRefusedWithin("config check " + Write("big.json", BigConfig((4u << 20) - 100)),
                      {"stormguard config check: out of memory"}, kMib);
}

// The largest fan-out `simulate hedge` accepts (4e6 leaf requests a run,
// 10,000 leaves) ends within the bounds; one leaf request more is refused.
TEST_F(HostileInputsTest, TheLargestHedgeRunStaysBounded) {
  if (bounded_run_internal::kSanitized)
    GTEST_SKIP() << "three runs of 4e6 leaf requests are too slow under a sanitizer";
  const BoundedRun run = RunBounded("simulate hedge --json --leaves 10000 --requests 400 --rate 50", 512);
  ExpectExit(run, 0, "simulate hedge");
  EXPECT_THAT(run.out, HasSubstr("\"waited_leaves\": 10000"));
  ExpectRefusedWithin("simulate hedge --leaves 10000 --requests 401 --rate 50", {"--requests: "});
}

// The JSON parser took a NUL for the end of the text and ignored the rest.
TEST_F(HostileInputsTest, BytesAfterTheDocumentAreRefused) {
  const std::string f = Write("tail.json", std::string(R"({"destinations": {}})") + '\0' + "garbage");
  const BoundedRun run = RunBounded("config check " + f);
  ExpectExit(run, 1, "config check");
  EXPECT_THAT(run.err, HasSubstr("document: has a NUL byte at offset 20"));
  ExpectRefusedWithin("lint " + Write("chain.json", std::string(R"({"services": []})") + '\0' + "x"),
                      {"chain.json: document: has a NUL byte at offset 16"});
}

#endif  // STORMGUARD_CLI_PATH

}  // namespace
}  // namespace stormguard::testkit
