// A temporary directory for one test, removed with everything in it.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace stormguard::config_sources::testkit {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/stormguard-sources-XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

  // Writes in place (same inode), as an editor without backup files does.
  static void WriteInPlace(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  // Writes a new file and renames it over `path`: the operator's way.
  void WriteByRename(const std::string& path, const std::string& text) const {
    const std::string tmp = File(".tmp");
    WriteInPlace(tmp, text);
    std::filesystem::rename(tmp, path);
  }

 private:
  std::string path_;
};

}  // namespace stormguard::config_sources::testkit
