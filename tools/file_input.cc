#include "file_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "stormguard/config/config_json.h"

namespace stormguard::cli {
namespace {

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

const char* KindOf(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "of an unknown kind";
}

}  // namespace

// O_NONBLOCK: opening a FIFO would wait for a writer, and a read of a
// pseudo-file that waits for data (/proc/kmsg) fails at once instead.
Result<InputFile> ReadInputFile(const std::string& path) {
  const auto fail = [&](const std::string& why) { return Status::InvalidArgument(path + ": " + why); };
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.fd < 0) return fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) return fail(std::string("cannot read: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(std::string("not a regular file (") + KindOf(st.st_mode) + ")");
  const std::size_t limit = config::kMaxConfigBytes;
  const auto too_large = [&] { return fail("larger than " + std::to_string(limit) + " bytes (4 MiB)"); };
  if (static_cast<std::uint64_t>(st.st_size) > limit) return too_large();
  InputFile in{
      .text = {}, .device = static_cast<std::uint64_t>(st.st_dev), .inode = static_cast<std::uint64_t>(st.st_ino)};
  // Pseudo-files say size 0 and hold more: read to the end, one byte past the limit at most.
  in.text.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t used = 0;
  for (;;) {
    if (used == in.text.size()) {
      if (used > limit) return too_large();
      in.text.resize(std::min(std::max<std::size_t>(used * 2, 4096), limit + 1));
    }
    const ssize_t n = ::read(f.fd, in.text.data() + used, in.text.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  in.text.resize(used);
  return in;
}

}  // namespace stormguard::cli
