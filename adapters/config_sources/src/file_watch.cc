#include "stormguard/config_sources/file_watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "stormguard/config/config_json.h"

namespace stormguard::config_sources {
namespace {

// How long after a write its mtime may still share a tick with the next
// write. Kernel file timestamps advance at most every jiffy (1-10 ms); one
// second covers them and coarser filesystems with room to spare.
constexpr std::int64_t kRacyWindowNs = 1'000'000'000;

std::int64_t Nanos(const timespec& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

FileWatch::FileWatch(std::string path) : path_(std::move(path)), origin_("file:" + path_) {}

std::optional<Result<ConfigUpdate>> FileWatch::Check() {
  struct stat st{};
  if (::stat(path_.c_str(), &st) != 0) {
    const bool missing = errno == ENOENT;
    const std::string message = Errno(origin_);
    return Fail(missing ? Status::NotFound(message) : Status::Unavailable(message));
  }
  const Identity now{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                     static_cast<std::int64_t>(st.st_size), Nanos(st.st_mtim)};
  if (seen_ == now && !racy_) return std::nullopt;

  Identity read_identity;
  Result<std::string> text = Read(read_identity);
  if (!text.ok()) return Fail(std::move(text).status());
  seen_ = read_identity;
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);  // the clock file timestamps come from
  racy_ = Nanos(wall) - read_identity.mtime_ns < kRacyWindowNs;
  last_error_.clear();
  if (delivered_ == *text) return std::nullopt;
  delivered_ = *text;
  return Result<ConfigUpdate>(ConfigUpdate{std::move(*text), origin_, ++revision_});
}

// Opens without blocking (a FIFO would) and takes the identity from the
// descriptor actually read, so a rename between stat() and open() is seen
// again at the next Check rather than attributed to the wrong bytes.
Result<std::string> FileWatch::Read(Identity& identity) {
  ++reads_;
  Fd f{::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) return Status::Unavailable(Errno(origin_));
  struct stat st{};
  if (::fstat(f.fd, &st) != 0) return Status::Unavailable(Errno(origin_));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(origin_ + ": not a regular file");
  identity = {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
              static_cast<std::int64_t>(st.st_size), Nanos(st.st_mtim)};
  const std::size_t limit = config::kMaxConfigBytes;
  const auto too_large = [&] {
    return Status::ResourceExhausted(origin_ + ": larger than " + std::to_string(limit) + " bytes");
  };
  if (static_cast<std::uint64_t>(st.st_size) > limit) return too_large();
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size) + 1);  // +1: sees growth since fstat
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) {
      if (text.size() > limit) return too_large();
      text.resize(std::min(text.size() * 2, limit + 1));
    }
    const ssize_t n = ::read(f.fd, text.data() + used, text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Unavailable(Errno(origin_));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  if (used > limit) return too_large();
  text.resize(used);
  return text;
}

std::optional<Result<ConfigUpdate>> FileWatch::Fail(Status status) {
  seen_.reset();
  delivered_.reset();
  if (status.message() == last_error_) return std::nullopt;
  last_error_ = status.message();
  return Result<ConfigUpdate>(std::move(status));
}

}  // namespace stormguard::config_sources
