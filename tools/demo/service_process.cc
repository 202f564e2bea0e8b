#include "demo/service_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "stormguard/core/clock.h"

namespace stormguard::demo {
namespace {
using namespace std::chrono_literals;

// Running children, for the interrupt handler: lock-free slots (0 = free).
std::array<std::atomic<pid_t>, 16> g_children{};

void Register(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t free_slot = 0;
    if (slot.compare_exchange_strong(free_slot, pid)) return;
  }
}

void Unregister(pid_t pid) {
  for (auto& slot : g_children) {
    pid_t mine = pid;
    slot.compare_exchange_strong(mine, 0);
  }
}

// Async-signal-safe: kill, waitpid, signal and raise only.
void OnInterrupt(int sig) {
  for (auto& slot : g_children) {
    if (const pid_t pid = slot.load(); pid > 0) ::kill(pid, SIGTERM);
  }
  for (auto& slot : g_children) {
    if (const pid_t pid = slot.load(); pid > 0) ::waitpid(pid, nullptr, 0);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

constexpr std::array<int, 3> kInterrupts = {SIGINT, SIGTERM, SIGHUP};
std::array<struct sigaction, 3> g_previous{};

Status Errno(const char* what) { return Status::Internal(std::string(what) + ": " + std::strerror(errno)); }

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void ExecChild(char* const* argv, int stdout_fd, pid_t parent, const sigset_t& mask) {
  for (int sig : kInterrupts) ::signal(sig, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);       // a service has nothing to clean up
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
  ::dup2(stdout_fd, STDOUT_FILENO);
  ::close_range(3, ~0U, 0);  // no inherited sockets or pipes of earlier children
  ::execv(argv[0], argv);
  ::_exit(127);
}

// Reads the child's "port N" line, waiting at most `timeout`.
Result<int> ReadPort(int fd, Duration timeout) {
  const TimePoint until = Clock::Real().Now() + timeout;
  std::string line;
  char buf[64];
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::Real().Now()).count();
    if (left <= 0) return Status::DeadlineExceeded("service did not report its port in time");
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return Errno("poll");
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return Status::Unavailable("service exited before reporting its port");
    if (n < 0 && errno != EINTR) return Errno("read");
    if (n > 0) line.append(buf, static_cast<std::size_t>(n));
  }
  int port = 0;
  if (std::sscanf(line.c_str(), "port %d", &port) != 1 || port <= 0 || port > 65535) {
    return Status::Internal("service reported '" + line.substr(0, line.find('\n')) + "', not a port");
  }
  return port;
}

}  // namespace

Result<std::unique_ptr<ServiceProcess>> ServiceProcess::Start(const std::string& exe,
                                                              const std::vector<std::string>& args,
                                                              Duration ready_timeout) {
  std::vector<std::string> words = {exe, "demo-service"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Errno("pipe2");
  // Block signals across fork so the child never runs the parent's handler.
  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) ExecChild(argv.data(), fds[1], parent, old);
  if (pid > 0) Register(pid);
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return Errno("fork");
  }
  std::unique_ptr<ServiceProcess> child(new ServiceProcess(pid, 0));
  Result<int> port = ReadPort(fds[0], ready_timeout);
  ::close(fds[0]);
  if (!port.ok()) return port.status();  // `child` stops the process
  child->port_ = *port;
  return child;
}

void ServiceProcess::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  bool reaped = false;
  for (int i = 0; i < 200 && !reaped; ++i) {  // 2 s of grace
    reaped = ::waitpid(pid_, nullptr, WNOHANG) == pid_;
    if (!reaped) std::this_thread::sleep_for(10ms);
  }
  if (!reaped) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  Unregister(pid_);
  pid_ = -1;
}

InterruptGuard::InterruptGuard() {
  struct sigaction sa {};
  sa.sa_handler = &OnInterrupt;
  ::sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < kInterrupts.size(); ++i) ::sigaction(kInterrupts[i], &sa, &g_previous[i]);
}

InterruptGuard::~InterruptGuard() {
  for (std::size_t i = 0; i < kInterrupts.size(); ++i) ::sigaction(kInterrupts[i], &g_previous[i], nullptr);
}

}  // namespace stormguard::demo
