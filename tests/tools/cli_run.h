// tests/tools/cli_run.h: run the built `stormguard` binary in a test.
//
// tests/CMakeLists.txt passes its path as STORMGUARD_CLI_PATH; RunCli runs
// `stormguard <args>` through the shell with stderr in a temp file, so a
// test can check stdout, stderr and the exit status separately. Arguments
// are test literals (no quoting is done).
//
//   CliRun r = RunCli("simulate storm --json");
//   EXPECT_EQ(r.status, 0) << r.err;
#pragma once

#ifdef STORMGUARD_CLI_PATH
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace stormguard::testkit {

struct CliRun {
  int status = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string ReadAll(FILE* f) {
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  return out;
}

inline CliRun RunCli(const std::string& args) {
  char err_path[] = "/tmp/stormguard_cli_test_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) return {};
  close(fd);
  const std::string cmd = std::string("'") + STORMGUARD_CLI_PATH + "' " + args + " 2>" + err_path;
  CliRun run;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    run.out = ReadAll(p);
    const int raw = pclose(p);
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }
  if (FILE* e = fopen(err_path, "r")) {
    run.err = ReadAll(e);
    fclose(e);
  }
  std::remove(err_path);
  return run;
}

}  // namespace stormguard::testkit

#endif  // STORMGUARD_CLI_PATH
