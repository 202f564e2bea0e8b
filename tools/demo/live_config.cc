#include "demo/live_config.h"

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "stormguard/config_sources/reload_into.h"

namespace stormguard::demo {
namespace {

namespace cs = config_sources;

// Tells Start when the source has answered once (a document or a failure).
struct FirstAnswer {
  std::mutex mu;
  std::condition_variable cv;
  bool seen = false;

  void Signal() {
    std::lock_guard lock(mu);
    seen = true;
    cv.notify_all();
  }
  void Wait(Duration limit) {
    std::unique_lock lock(mu);
    cv.wait_for(lock, limit, [&] { return seen; });
  }
};

cs::ConfigSink Signalling(cs::ConfigSink sink, std::shared_ptr<FirstAnswer> first) {
  return [sink = std::move(sink), first = std::move(first)](Result<cs::ConfigUpdate> update) {
    sink(std::move(update));
    first->Signal();
  };
}

// The file's first line (a trailing newline is not part of a password). A
// regular file of at most kMaxPasswordFileBytes: a FIFO would hang the
// start, /dev/zero would fill the memory.
constexpr std::uintmax_t kMaxPasswordFileBytes = 4096;

Result<std::string> ReadPassword(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > kMaxPasswordFileBytes) {
    return Status::InvalidArgument("--password-file: " + path + " is not a regular file of at most 4096 bytes");
  }
  std::ifstream in(path);
  std::string password;
  if (!in || !std::getline(in, password)) return Status::InvalidArgument("--password-file: cannot read " + path);
  return password;
}

}  // namespace

Result<std::unique_ptr<LiveConfig>> LiveConfig::Start(const ConfigSourceFlags& source, config::Registry& registry) {
  if (std::vector<std::string> errors = source.Validate(); !errors.empty()) {
    return Status::InvalidArgument(errors.front());
  }
  if (source.empty()) return std::unique_ptr<LiveConfig>();
  std::unique_ptr<LiveConfig> live(new LiveConfig());
  auto first = std::make_shared<FirstAnswer>();
  if (!source.file.empty()) {
    const std::string origin = "file:" + source.file;
    auto file = cs::FileSource::Start({.path = source.file, .poll_interval = kFilePoll},
                                      Signalling(cs::ReloadInto(registry, origin), first));
    if (!file.ok()) return Status::InvalidArgument("--config: " + file.status().message());
    live->file_ = std::move(file).value();
  } else {
    const std::string origin = "etcd:" + source.key;
    cs::EtcdSourceOptions options{.endpoint = source.etcd,
                                  .key = source.key,
                                  .ca_file = source.cacert,
                                  .cert_file = source.cert,
                                  .key_file = source.cert_key,
                                  .user = source.user};
    if (!source.password_file.empty()) {
      Result<std::string> password = ReadPassword(source.password_file);
      if (!password.ok()) return password.status();
      options.password = *std::move(password);
    }
    options.reconnect.cap = kEtcdReconnectCap;
    auto etcd = cs::EtcdSource::Start(std::move(options), Signalling(cs::ReloadInto(registry, origin), first));
    if (!etcd.ok()) return Status::InvalidArgument("--etcd: " + etcd.status().message());
    live->etcd_ = std::move(etcd).value();
  }
  first->Wait(kFirstDocumentWait);
  return live;
}

LiveConfig::~LiveConfig() {
  if (file_) file_->Stop();
  if (etcd_) etcd_->Stop();
}

}  // namespace stormguard::demo
