// tests/tools/bounded_run.h: run the built `stormguard` binary in a child
// bounded in memory (1 GiB), CPU (10 s) and wall time (20 s), so a hostile
// input that would crash, exhaust memory or never end fails its test
// instead of hanging the suite.
//
//   BoundedRun run = RunBounded("config check /tmp/fifo");
//   ASSERT_TRUE(WIFEXITED(run.wait_status));
//   ExpectRefused({{"backoff --cap 0", "--cap"}});  // exit 2, one line naming --cap
#pragma once

#ifdef STORMGUARD_CLI_PATH
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "sanitized.h"
#include "tools/cli_run.h"

namespace stormguard::testkit {

struct BoundedRun {
  int wait_status = -1;
  std::string out, err;
};

namespace bounded_run_internal {

inline std::vector<std::string> Words(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> words{STORMGUARD_CLI_PATH};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

inline std::string Slurp(std::FILE* f) {
  std::rewind(f);
  std::string s = ReadAll(f);
  std::fclose(f);
  return s;
}

// The child's environment. Sanitizers reserve terabytes of address space
// for their shadow, so a sanitized CLI cannot run under RLIMIT_AS: there the
// same 1 GiB bound is the sanitizer's own resident-size limit instead.
using testkit::kSanitized;  // tests/sanitized.h

inline std::vector<std::string> ChildEnvironment(std::size_t memory_mib) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  if (kSanitized) {
    for (const std::string name : {"ASAN_OPTIONS", "TSAN_OPTIONS"}) {
      const char* old = std::getenv(name.c_str());
      std::erase_if(env, [&](const std::string& kv) { return kv.starts_with(name + "="); });
      env.push_back(name + "=" + (old != nullptr ? std::string(old) + ":" : "") +
                    "hard_rss_limit_mb=" + std::to_string(memory_mib));
    }
  }
  return env;
}

inline std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace bounded_run_internal

// Runs the CLI in a child with 1 GiB of memory (or `memory_mib`), 10 s of
// CPU and an alarm after 20 s of wall time, all inherited across exec;
// `args` are split on white space. Everything the child needs is built
// before fork: it must not allocate.
inline BoundedRun RunBounded(const std::string& args, std::size_t memory_mib = 1024) {
  using namespace bounded_run_internal;
  std::vector<std::string> words = Words(args);
  std::vector<std::string> env = ChildEnvironment(memory_mib);
  const rlimit memory{memory_mib << 20, memory_mib << 20}, cpu{10, 10};
  std::vector<char*> argv = Pointers(words);
  std::vector<char*> envp = Pointers(env);
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  if (out == nullptr || err == nullptr) return {};
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    if ((!kSanitized && ::setrlimit(RLIMIT_AS, &memory) != 0) || ::setrlimit(RLIMIT_CPU, &cpu) != 0) {
      ::_exit(125);
    }
    ::alarm(20);
    if (::dup2(fileno(out), STDOUT_FILENO) < 0 || ::dup2(fileno(err), STDERR_FILENO) < 0) ::_exit(126);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  BoundedRun run;
  if (pid > 0) ::waitpid(pid, &run.wait_status, 0);
  run.out = Slurp(out);
  run.err = Slurp(err);
  return run;
}

struct RefusedCase {
  std::string args;
  std::string flag;  // the one line must contain this
};

// Each run must be refused before any work: exit status 2, nothing on
// stdout, one line on stderr naming the flag, within RunBounded's bounds.
inline void ExpectRefused(const std::vector<RefusedCase>& cases) {
  using ::testing::HasSubstr;
  using ::testing::StartsWith;
  for (const auto& [args, flag] : cases) {
    const BoundedRun run = RunBounded(args);
    ASSERT_TRUE(WIFEXITED(run.wait_status)) << args << ": killed by signal " << WTERMSIG(run.wait_status);
    EXPECT_EQ(WEXITSTATUS(run.wait_status), 2) << args << ": " << run.err;
    EXPECT_EQ(run.out, "") << args;
    EXPECT_THAT(run.err, StartsWith("stormguard: ")) << args;
    EXPECT_THAT(run.err, HasSubstr(flag)) << args;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << args << ": " << run.err;
  }
}

}  // namespace stormguard::testkit

#endif  // STORMGUARD_CLI_PATH
