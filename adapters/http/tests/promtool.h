// `promtool check metrics` (Debian's prometheus package) for tests: the
// path comes from configure time (STORMGUARD_PROMTOOL_PATH); without it the
// check fails and says how to get it.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace stormguard::http::testkit {

struct Lint {
  int exit_code = -1;
  std::string output;
};

// `promtool check metrics` on `text`: exit 0 means no complaint.
inline Lint Promtool(const std::string& text) {
  const std::string promtool = STORMGUARD_PROMTOOL_PATH;
  if (promtool.ends_with("NOTFOUND")) {
    ADD_FAILURE() << "promtool not found at configure time: install Debian's prometheus package "
                     "(scripts/install-deps.sh does) and configure again";
    return {};
  }
  const auto file = std::filesystem::temp_directory_path() /
                    ("stormguard_metrics_" + std::to_string(::getpid()) + "_" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".txt");
  std::ofstream(file) << text;
  const std::string cmd = "'" + promtool + "' check metrics < '" + file.string() + "' 2>&1";
  Lint lint;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p) != nullptr) lint.output += buf;
    const int status = ::pclose(p);
    lint.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::filesystem::remove(file);
  return lint;
}

}  // namespace stormguard::http::testkit
