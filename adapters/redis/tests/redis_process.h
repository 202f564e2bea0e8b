// A real redis-server for the integration tests: started on loopback on a
// free port, with no persistence (restarted, it is empty), optionally with
// ACL users; killed (SIGKILL) and restarted on the same port. It dies with
// the test process (testkit/child_process.h). Every wait is bounded.
#pragma once

#include <hiredis/hiredis.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "testkit/child_process.h"

namespace stormguard::redis::testkit {

class RedisProcess {
 public:
  RedisProcess() : port_(stormguard::testkit::FreeLoopbackPort()) {}
  ~RedisProcess() { Kill(); }
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // For the next Start: one ACL line ("fleet on >secret ~p:* +@all"); any
  // given turns the default user off, so only these users get in.
  void AddUser(std::string acl) { users_.push_back(std::move(acl)); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  // Starts it and waits at most 5 s for it to answer; false if it did not.
  bool Start() {
    std::vector<std::string> args = {STORMGUARD_REDIS_SERVER_PATH,
                                     "--port",
                                     std::to_string(port_),
                                     "--bind",
                                     "127.0.0.1",
                                     "--save",
                                     "",
                                     "--appendonly",
                                     "no",
                                     "--logfile",
                                     "/dev/null"};
    // redis-server quotes each argument as one word of the config line.
    for (const std::string& u : users_) {
      args.push_back("--user");
      for (std::size_t at = 0; at < u.size();) {
        const std::size_t space = std::min(u.find(' ', at), u.size());
        args.push_back(u.substr(at, space - at));
        at = space + 1;
      }
    }
    if (!users_.empty()) args.insert(args.end(), {"--user", "default", "off"});
    pid_ = stormguard::testkit::SpawnTiedChild(std::move(args));
    for (int i = 0; i < 100; ++i) {
      if (Answers()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  void Kill() { stormguard::testkit::KillChild(pid_); }

  // Stops the process and lets it go on: its socket stays open and silent.
  void Freeze() const { ::kill(pid_, SIGSTOP); }
  void Thaw() const { ::kill(pid_, SIGCONT); }

  // One command as `user` (empty: none); the reply as text ("ERR ..." for errors).
  std::string Command(const std::vector<std::string>& args, const std::string& user = "",
                      const std::string& password = "") const {
    redisContext* c = redisConnectWithTimeout("127.0.0.1", port_, timeval{1, 0});
    if (c == nullptr || c->err != 0) {
      if (c != nullptr) redisFree(c);
      return "connect failed";
    }
    redisSetTimeout(c, timeval{1, 0});
    if (!user.empty()) Run(c, {"AUTH", user, password});
    std::string out = Run(c, args);
    redisFree(c);
    return out;
  }

 private:
  static std::string Run(redisContext* c, const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(args.size()), argv.data(), lens.data()));
    if (r == nullptr) return "no reply";
    std::string out = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer)
                      : r->str != nullptr            ? std::string(r->str, r->len)
                                                     : "(" + std::to_string(r->type) + ")";
    freeReplyObject(r);
    return out;
  }
  // Any reply to PING, NOAUTH included, means the server is up.
  bool Answers() const { return Command({"PING"}) != "connect failed" && Command({"PING"}) != "no reply"; }

  int port_;
  std::vector<std::string> users_;
  pid_t pid_ = -1;
};

}  // namespace stormguard::redis::testkit
