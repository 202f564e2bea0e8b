// stormguard/config_sources/file_source.h: live reload from one file.
//
//   auto source = FileSource::Start({.path = "/etc/stormguard.json"}, sink).value();
//   ...                 // sink receives each new version (FileWatch decides)
//   source->Stop();     // or destroy it
//
// Start reads the file once on the calling thread, so the sink has the first
// document (or the reason there is none) before Start returns; then a task on
// the executor checks it every poll_interval on the executor's clock.
//
// Why a stat() poll and not inotify: a poll sees atomic renames, in-place
// writes, a replaced directory or symlink (Kubernetes ConfigMaps swap one)
// and network filesystems alike, which inotify does not without watching
// the directory and re-arming on every swap; one stat() a second costs
// nothing; and on an injected clock the tests decide when it runs.
//
// The poll task holds one executor thread until Stop: give the source an
// executor of its own (the default), or one with a thread to spare.
//
// Thread safety: Stop may be called from any thread but the executor's.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "stormguard/config_sources/config_update.h"
#include "stormguard/config_sources/file_watch.h"
#include "stormguard/core/time.h"
#include "stormguard/exec/executor.h"

namespace stormguard::config_sources {

struct FileSourceOptions {
  std::string path;
  Duration poll_interval = std::chrono::seconds(1);  // in [1ms, 1h]
  // Runs the poll task, on its clock. Null: a one-thread pool of its own on
  // the real clock.
  std::shared_ptr<Executor> executor;

  std::vector<std::string> Validate() const;
};

class FileSource {
 public:
  // INVALID_ARGUMENT naming each bad option; RESOURCE_EXHAUSTED when the
  // executor refuses the poll task. `sink` must not be empty.
  static Result<std::unique_ptr<FileSource>> Start(FileSourceOptions options, ConfigSink sink);
  ~FileSource();
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  // Ends the poll task and waits for it; idempotent. The sink is not called
  // after Stop returns.
  void Stop();

 private:
  FileSource(FileSourceOptions options, ConfigSink sink);
  void Poll();
  void Loop();

  FileSourceOptions options_;
  ConfigSink sink_;
  FileWatch watch_;
  TimePoint next_{};
  std::stop_source stop_;
  std::mutex mu_;
  std::condition_variable done_cv_;
  bool running_ = false;  // guarded by mu_: the poll task has not returned
};

}  // namespace stormguard::config_sources
