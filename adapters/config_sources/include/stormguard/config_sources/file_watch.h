// stormguard/config_sources/file_watch.h: notices when one configuration
// file's content changes, by looking at it when asked.
//
//   FileWatch watch("/etc/stormguard.json");
//   if (auto u = watch.Check()) sink(std::move(*u));  // changed, or failing
//
// Operators replace the file by an atomic rename (a new inode) or write it
// in place (same inode, new size, mtime or ctime); both change what stat()
// says, so Check() costs one stat() while nothing happens and reads only
// then. A write can land in the same timestamp tick as the read before it
// (coarse filesystem clocks) and leave stat() unchanged; when the read saw
// a ctime that recent, Check() reads the file once more after the tick has
// surely passed (one second), as git re-checks "racy" index entries. The
// ctime decides, not the mtime: the kernel sets it, while anyone can set a
// file's mtime into the future, which must not make every poll a read. A
// read that gives the bytes already delivered delivers nothing, so a
// rewrite with equal content is silent.
//
// Failures (missing, not a regular file, unreadable, over
// config::kMaxConfigBytes) are returned once each, not at every Check, and
// the next good read is delivered even when its content is unchanged, so a
// receiver that saw the error learns that the file is back.
//
// Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "stormguard/config_sources/config_update.h"

namespace stormguard::config_sources {

class FileWatch {
 public:
  // Nanoseconds since the epoch on the clock file timestamps come from.
  using WallClock = std::function<std::int64_t()>;

  // `wall`: CLOCK_REALTIME unless a test injects its own.
  explicit FileWatch(std::string path, WallClock wall = {});

  // A new document, a new failure, or nothing when neither happened.
  std::optional<Result<ConfigUpdate>> Check();

  const std::string& origin() const noexcept { return origin_; }
  // Times the file was opened and read (tests check that stat() sufficed).
  std::uint64_t reads() const noexcept { return reads_; }

 private:
  struct Identity {
    std::uint64_t dev = 0, ino = 0;
    std::int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
    bool operator==(const Identity&) const = default;
  };
  std::optional<Result<ConfigUpdate>> Fail(Status status);
  Result<std::string> Read(Identity& identity);

  std::string path_;
  std::string origin_;
  WallClock wall_;
  std::optional<Identity> seen_;  // what stat() said at the last good read
  // That read was within a timestamp tick of a change: read once more at
  // this wall time.
  std::optional<std::int64_t> recheck_at_;
  std::optional<std::string> delivered_;  // content last delivered; reset by a failure
  std::string last_error_;                // the failure last returned ("" after a good read)
  std::int64_t revision_ = 0;
  std::uint64_t reads_ = 0;
};

}  // namespace stormguard::config_sources
