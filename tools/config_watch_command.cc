// `stormguard config watch`: follows a live configuration source through a
// registry, as a service would, and prints each version as it arrives:
//
//   version 2 accepted: etcd:/sg/config revision 41
//   rejected, version 2 stays: etcd:/sg/config revision 42
//     destinations.inventory.retry_budget.token_bucket.max_tokens: must be at least 1
//
// A read failure (file missing, etcd unreachable or refusing us) is printed
// as a rejection with its reason. Ends on SIGINT or SIGTERM, or after
// --count versions.
//
// An etcd that checks who its clients are: --cacert, --cert and --cert-key
// for TLS (https:// only; --key already names the watched key), --user and
// --password-file for etcd authentication. The password is read from a
// file, never taken from argv, where any user of the host can read it.
// Exit status: 0 when it ends so, 2 for a bad flag (checked before the
// source starts: the message names the flag) or a source that cannot start.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "commands.h"
#include "duration_flag.h"
#include "file_input.h"
#include "number_flag.h"
#include "stormguard/config/registry.h"
#include "stormguard/config_sources/etcd_source.h"
#include "stormguard/config_sources/file_source.h"
#include "stormguard/config_sources/reload_into.h"

namespace stormguard::cli {
namespace {

namespace cs = config_sources;

struct WatchFlags {
  std::string file;
  std::string etcd;
  std::string key;
  bool prefix = false;
  Duration poll = std::chrono::seconds(1);
  Duration stale_after = cs::EtcdSourceOptions{}.stale_after;
  std::string cacert;
  std::string cert;
  std::string cert_key;
  std::string user;
  std::string password_file;
  std::string password;  // read from password_file by CheckFlags
  Duration token_ttl = cs::EtcdSourceOptions{}.token_ttl;
  int count = 0;  // 0: until a signal
};

cs::FileSourceOptions FileOptions(const WatchFlags& f) { return {.path = f.file, .poll_interval = f.poll}; }

cs::EtcdSourceOptions EtcdOptions(const WatchFlags& f) {
  return {.endpoint = f.etcd,
          .key = f.key,
          .prefix = f.prefix,
          .ca_file = f.cacert,
          .cert_file = f.cert,
          .key_file = f.cert_key,
          .user = f.user,
          .password = f.password,
          .token_ttl = f.token_ttl,
          .stale_after = f.stale_after};
}

// A source option and the flag that sets it.
struct FlagOf {
  std::string_view option;
  const char* flag;
};

// Refuses the flags before anything starts, naming the flag the first
// option error is about ("poll_interval: must be in [1ms, 1h]" is --poll's).
void Refuse(const std::vector<std::string>& errors, std::initializer_list<FlagOf> flags) {
  if (errors.empty()) return;
  const std::string& error = errors.front();
  for (const FlagOf& f : flags) {
    const std::string prefix = std::string(f.option) + ": ";
    if (error.starts_with(prefix)) throw CLI::ValidationError(f.flag, error.substr(prefix.size()));
  }
  throw CLI::ValidationError("config watch", error);
}

// The password: the file's text without one final line break, so that
// `echo secret > f` works.
std::string ReadPassword(const std::string& path) {
  Result<InputFile> file = ReadInputFile(path);
  if (!file.ok()) throw CLI::ValidationError("--password-file", file.status().message());
  std::string password = std::move(file->text);
  if (password.ends_with('\n')) password.pop_back();
  if (password.ends_with('\r')) password.pop_back();
  if (password.empty()) throw CLI::ValidationError("--password-file", path + ": empty");
  return password;
}

void CheckFlags(WatchFlags& f) {
  if (f.file.empty() == f.etcd.empty()) throw CLI::ValidationError("config watch", "give either --file or --etcd");
  if (!f.file.empty()) {
    for (const auto& [flag, value] : {std::pair{"--cacert", &f.cacert},
                                      {"--cert", &f.cert},
                                      {"--cert-key", &f.cert_key},
                                      {"--user", &f.user},
                                      {"--password-file", &f.password_file}}) {
      if (!value->empty()) throw CLI::ValidationError(flag, "applies to --etcd only");
    }
    Refuse(FileOptions(f).Validate(), {{"path", "--file"}, {"poll_interval", "--poll"}});
    return;
  }
  if (f.key.empty()) throw CLI::ValidationError("--key", "--etcd needs the key to watch");
  if (f.user.empty() != f.password_file.empty()) {
    throw CLI::ValidationError(f.user.empty() ? "--password-file" : "--user", "--user and --password-file go together");
  }
  if (!f.password_file.empty()) f.password = ReadPassword(f.password_file);
  Refuse(EtcdOptions(f).Validate(), {{"endpoint", "--etcd"},
                                     {"key", "--key"},
                                     {"stale_after", "--stale-after"},
                                     {"ca_file", "--cacert"},
                                     {"cert_file", "--cert"},
                                     {"key_file", "--cert-key"},
                                     {"user", "--user"},
                                     {"password", "--password-file"},
                                     {"token_ttl", "--token-ttl"}});
}

// Prints registry events; counts the versions printed.
class Printer {
 public:
  explicit Printer(int count) : count_(count) {}

  // The source's sink: remembers the revision for the line, then applies.
  cs::ConfigSink Sink(config::Registry& registry, std::string origin) {
    return [this, apply = cs::ReloadInto(registry, std::move(origin))](Result<cs::ConfigUpdate> u) {
      revision_ = u.ok() ? u->revision : 0;
      apply(std::move(u));
    };
  }

  void Print(const config::ReloadEvent& e) {
    if (done()) return;
    std::string where(e.origin);
    if (revision_ > 0) where += " revision " + std::to_string(revision_);
    if (e.accepted) {
      std::printf("version %llu accepted: %s\n", static_cast<unsigned long long>(e.version), where.c_str());
    } else {
      std::printf("rejected, %s: %s\n", Stays(e).c_str(), where.c_str());
      for (const std::string& error : e.errors) std::printf("  %s\n", error.c_str());
    }
    std::fflush(stdout);  // a watcher reads lines as they come
    printed_.fetch_add(1, std::memory_order_release);
  }

  bool done() const { return count_ > 0 && printed_.load(std::memory_order_acquire) >= count_; }

 private:
  static std::string Stays(const config::ReloadEvent& e) {
    if (e.on_defaults) return "the built-in default stays";
    return "version " + std::to_string(e.version) + " stays";
  }

  const int count_;
  std::atomic<int> printed_{0};
  std::int64_t revision_ = 0;  // of the update being applied; source thread only
};

using Source = std::variant<std::unique_ptr<cs::FileSource>, std::unique_ptr<cs::EtcdSource>>;

// The flags were checked (CheckFlags); Start can still fail for want of a thread.
Source StartSource(const WatchFlags& f, config::Registry& registry, Printer& printer) {
  if (!f.file.empty()) {
    auto s = cs::FileSource::Start(FileOptions(f), printer.Sink(registry, "file:" + f.file));
    if (!s.ok()) throw CLI::ValidationError("--file", s.status().message());
    return std::move(s).value();
  }
  auto s = cs::EtcdSource::Start(EtcdOptions(f), printer.Sink(registry, "etcd:" + f.key));
  if (!s.ok()) throw CLI::ValidationError("--etcd", s.status().message());
  return std::move(s).value();
}

// Blocks SIGINT and SIGTERM in this thread and every thread it starts after,
// so they wait for sigtimedwait instead of ending the process mid-print.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

void Watch(WatchFlags& f) {
  CheckFlags(f);
  const sigset_t stop = BlockStopSignals();
  Printer printer(f.count);
  bool started = false;  // the registry's first event is its built-in default: not a version
  // Chaos allowed: the watch serves no call, and it reports whether each
  // version is a valid configuration, as config check does; whether a
  // serving process takes chaos from it is that process's own choice
  // (RegistryOptions::allow_chaos), which the watch cannot know.
  config::Registry registry({.on_reload =
                                 [&](const config::ReloadEvent& e) {
                                   if (started) printer.Print(e);
                                 },
                             .allow_chaos = true});
  started = true;
  Source source = StartSource(f, registry, printer);
  // Wakes every 50 ms to see whether --count is reached.
  const timespec tick{.tv_sec = 0, .tv_nsec = 50'000'000};
  while (!printer.done() && sigtimedwait(&stop, nullptr, &tick) < 0) {
  }
  std::visit([](auto& s) { s->Stop(); }, source);  // before the registry goes
}

}  // namespace

void RegisterConfigWatchCommand(CLI::App& config) {
  auto flags = std::make_shared<WatchFlags>();
  CLI::App* watch =
      config.add_subcommand("watch",
                            "follow a configuration file or etcd key and print each version accepted or rejected");
  watch->add_option("--file", flags->file, "a configuration file, replaced by an atomic rename or written in place");
  AddDurationOption(*watch, "--poll", flags->poll, "how often --file is checked, in [1ms, 1h]");
  watch->add_option("--etcd", flags->etcd, "etcd's client URL: http(s)://host[:port], nothing after the port");
  watch->add_option("--key", flags->key, "the etcd key holding the document, or with --prefix the prefix");
  watch->add_flag("--prefix", flags->prefix, "each key under --key holds one destination");
  AddDurationOption(*watch, "--stale-after", flags->stale_after,
                    "a watch silent this long (no event, no progress notice) is reported and reopened, in "
                    "[10ms, 24h]; keep it above twice etcd's progress-notify interval");
  watch->add_option("--cacert", flags->cacert, "PEM file of the CAs etcd's certificate must chain to (https only)");
  watch->add_option("--cert", flags->cert, "PEM file of this client's certificate, for etcd's --client-cert-auth");
  watch->add_option("--cert-key", flags->cert_key, "PEM file of --cert's private key");
  watch->add_option("--user", flags->user, "etcd user to authenticate as (with --password-file)");
  watch->add_option("--password-file", flags->password_file,
                    "file holding --user's password (one final line break is ignored)");
  AddDurationOption(*watch, "--token-ttl", flags->token_ttl,
                    "etcd's --auth-token-ttl; the token is renewed at half of it, in [1s, 24h]");
  watch->add_option("--count", flags->count, "end after this many versions (default: at SIGINT or SIGTERM)")
      ->check(FiniteRange(1, 1'000'000));
  watch->callback([flags] { Watch(*flags); });
}

}  // namespace stormguard::cli
