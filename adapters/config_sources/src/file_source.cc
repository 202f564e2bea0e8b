#include "stormguard/config_sources/file_source.h"

#include <algorithm>

#include "stormguard/core/validation.h"

namespace stormguard::config_sources {

std::vector<std::string> FileSourceOptions::Validate() const {
  Validator v;
  v.Check(!path.empty(), "path", "must not be empty");
  v.Check(path.find('\0') == std::string::npos, "path", "must not contain a NUL byte");
  v.Check(poll_interval >= std::chrono::milliseconds(1) && poll_interval <= std::chrono::hours(1), "poll_interval",
          "must be in [1ms, 1h]");
  return std::move(v).errors();
}

Result<std::unique_ptr<FileSource>> FileSource::Start(FileSourceOptions options, ConfigSink sink) {
  std::vector<std::string> errors = options.Validate();
  if (!sink) errors.push_back("sink: must not be empty");
  if (!errors.empty()) return ValidationStatus("FileSourceOptions", errors);
  if (!options.executor) {
    auto pool = Executor::Create({.threads = 1, .queue_capacity = 1});
    if (!pool.ok()) return std::move(pool).status();
    options.executor = std::move(*pool);
  }
  std::unique_ptr<FileSource> source(new FileSource(std::move(options), std::move(sink)));
  FileSource* self = source.get();
  self->Poll();
  self->next_ = self->options_.executor->clock().Now() + self->options_.poll_interval;
  self->running_ = true;
  if (!self->options_.executor->TrySubmit([self] { self->Loop(); })) {
    self->running_ = false;
    return Status::ResourceExhausted("FileSource: the executor refused the poll task");
  }
  return source;
}

FileSource::FileSource(FileSourceOptions options, ConfigSink sink)
    : options_(std::move(options)), sink_(std::move(sink)), watch_(options_.path) {}

FileSource::~FileSource() { Stop(); }

void FileSource::Poll() {
  if (auto update = watch_.Check()) sink_(std::move(*update));
}

// A fixed schedule (next_ += interval) rather than "now + interval", so a
// test that moves a ManualClock by one interval gets exactly one poll.
void FileSource::Loop() {
  Clock& clock = options_.executor->clock();
  const std::stop_token stop = stop_.get_token();
  while (clock.SleepUntil(next_, stop)) {
    Poll();
    next_ = std::max(next_ + options_.poll_interval, clock.Now());
  }
  std::lock_guard lock(mu_);
  running_ = false;
  done_cv_.notify_all();
}

void FileSource::Stop() {
  stop_.request_stop();
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [this] { return !running_; });
}

}  // namespace stormguard::config_sources
