// Runs the real `stormguard` CLI as a child process for the demo's
// integration tests, and finds the processes it leaves behind.
//
// The test process makes itself a child subreaper, so services orphaned by
// a CLI that died are reparented to it: ChildrenOf(getpid()) then lists
// exactly what would have leaked, and Reap() collects it.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace stormguard::demo::testkit {

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Live (non-zombie) processes whose parent is `parent`.
inline std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = ReadFile(entry.path() / "stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

// Waits (at most `limit`) for `pid` to exit; returns its wait status or -1.
inline int WaitFor(pid_t pid, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

class CliProcess {
 public:
  // Starts `stormguard args...` with stdout and stderr going to files.
  explicit CliProcess(const std::vector<std::string>& args) {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    dir_ = std::filesystem::temp_directory_path() /
           ("stormguard-demo-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    std::vector<std::string> words = {STORMGUARD_CLI_PATH};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) ::_exit(126);
      if (::chdir(dir_.c_str()) != 0) ::_exit(125);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~CliProcess() {
    if (status_ < 0 && pid_ > 0) {
      ::kill(pid_, SIGKILL);
      WaitFor(pid_, std::chrono::seconds(5));
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  CliProcess(const CliProcess&) = delete;
  CliProcess& operator=(const CliProcess&) = delete;

  pid_t pid() const { return pid_; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string Stdout() const { return ReadFile(dir_ / "stdout"); }
  std::string Stderr() const { return ReadFile(dir_ / "stderr"); }

  // The wait status, or -1 when it did not exit within `limit`.
  int Wait(std::chrono::milliseconds limit) {
    if (status_ < 0) status_ = WaitFor(pid_, limit);
    return status_;
  }
  // Waits (at most `limit`) until stderr contains `text`.
  bool AwaitStderr(const std::string& text, std::chrono::milliseconds limit) const {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (Stderr().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int status_ = -1;
};

}  // namespace stormguard::demo::testkit
