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

// How long after a change its ctime may still share a tick with the next
// write. Kernel file timestamps advance at most every jiffy (1-10 ms); one
// second covers them and coarser filesystems with room to spare.
constexpr std::int64_t kRacyWindowNs = 1'000'000'000;

std::int64_t Nanos(const timespec& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

std::int64_t RealtimeNanos() {
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  return Nanos(wall);
}

// When to read once more a file read at `now` with this ctime, if a write
// in the same tick could hide behind an unchanged stat(). A ctime further
// ahead of the clock than the window (the clock was set back) needs no
// second read: any write from now on gets an earlier, different ctime.
std::optional<std::int64_t> RecheckAt(std::int64_t ctime_ns, std::int64_t now_ns) {
  const std::int64_t age = now_ns - ctime_ns;
  if (age >= kRacyWindowNs || age <= -kRacyWindowNs) return std::nullopt;
  return ctime_ns + kRacyWindowNs;
}

// Everything stat() says that a write or a rename changes.
template <class Identity>
Identity IdentityOf(const struct stat& st) {
  return {static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
          static_cast<std::int64_t>(st.st_size), Nanos(st.st_mtim), Nanos(st.st_ctim)};
}

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

FileWatch::FileWatch(std::string path, WallClock wall)
    : path_(std::move(path)), origin_("file:" + path_), wall_(wall ? std::move(wall) : WallClock(RealtimeNanos)) {}

std::optional<Result<ConfigUpdate>> FileWatch::Check() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    const bool missing = errno == ENOENT;
    const std::string message = Errno(origin_);
    return Fail(missing ? Status::NotFound(message) : Status::Unavailable(message));
  }
  const std::int64_t wall = wall_();
  if (seen_ == IdentityOf<Identity>(st) && !(recheck_at_ && wall >= *recheck_at_)) return std::nullopt;

  Identity read_identity;
  Result<std::string> text = Read(read_identity);
  if (!text.ok()) return Fail(std::move(text).status());
  seen_ = read_identity;
  recheck_at_ = RecheckAt(read_identity.ctime_ns, wall);
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
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return Status::Unavailable(Errno(origin_));
  if (!S_ISREG(st.st_mode)) return Status::InvalidArgument(origin_ + ": not a regular file");
  identity = IdentityOf<Identity>(st);
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
  recheck_at_.reset();
  delivered_.reset();
  if (status.message() == last_error_) return std::nullopt;
  last_error_ = status.message();
  return Result<ConfigUpdate>(std::move(status));
}

}  // namespace stormguard::config_sources
