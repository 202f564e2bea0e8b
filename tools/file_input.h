// tools/file_input.h: how the CLI reads a file a user names (a config for
// `config check`/`show`, a chain and its configs for `lint` and `plan`).
//
//   Result<InputFile> f = ReadInputFile("inventory.json");
//   if (!f.ok()) fail(f.status().message());  // "inventory.json: not a regular file (a FIFO)"
//
// Regular files only: a FIFO, a socket or a device is refused without
// waiting, since open() and read() on one can block forever (a FIFO nobody
// writes, /proc/kmsg). Pipes are not read with a timeout instead: a bound
// in wall time would make the same input pass or fail by the machine's
// load; `cmd > f.json` costs the user one file. At most
// config::kMaxConfigBytes (4 MiB): a larger file is refused after reading
// at most one byte past the limit, so the time and memory are those of
// reading 4 MiB. Errors name the path and the reason in one line.
//
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <string>

#include "stormguard/core/result.h"

namespace stormguard::cli {

struct InputFile {
  std::string text;
  // Which file was read (st_dev, st_ino): one file under two names or links
  // is the same file, for readers that parse each file once.
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
};

// INVALID_ARGUMENT "PATH: reason" when `path` is missing, not a regular
// file, unreadable or larger than config::kMaxConfigBytes.
Result<InputFile> ReadInputFile(const std::string& path);

}  // namespace stormguard::cli
