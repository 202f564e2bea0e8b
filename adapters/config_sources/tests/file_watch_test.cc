#include "stormguard/config_sources/file_watch.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "stormguard/config/config_json.h"
#include "temp_dir.h"

namespace stormguard::config_sources {
namespace {

using testkit::TempDir;

// Sets a file's mtime: to the past (settled), or back to an earlier value
// (as a write inside one timestamp tick leaves it).
void SetMtime(const std::string& path, timespec t) {
  const timespec times[2] = {t, t};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}
timespec Mtime(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mtim;
}
constexpr timespec kLongAgo{946684800, 0};  // 2000-01-01
constexpr std::int64_t kSecond = 1'000'000'000;

// The file's ctime in ns: set by the kernel at each change, never by a test.
std::int64_t CtimeNs(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return std::int64_t{st.st_ctim.tv_sec} * kSecond + st.st_ctim.tv_nsec;
}

std::string TextOf(const std::optional<Result<ConfigUpdate>>& u) { return u && u->ok() ? (*u)->text : "<none>"; }

TEST(FileWatchTest, DeliversTheFirstContentThenOnlyChanges) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{}");
  SetMtime(path, kLongAgo);
  FileWatch watch(path);
  const auto first = watch.Check();
  ASSERT_TRUE(first && first->ok());
  EXPECT_EQ((*first)->text, "{}");
  EXPECT_EQ((*first)->origin, "file:" + path);
  EXPECT_EQ((*first)->revision, 1);
  EXPECT_FALSE(watch.Check());
  EXPECT_EQ(watch.reads(), 1U);  // a settled, unchanged file costs a stat()
}

TEST(FileWatchTest, SeesAnAtomicRename) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, "{\"a\": 1}");
  FileWatch watch(path);
  ASSERT_TRUE(watch.Check());
  dir.WriteByRename(path, "{\"a\": 2}");
  const auto u = watch.Check();
  EXPECT_EQ(TextOf(u), "{\"a\": 2}");
  EXPECT_EQ((*u)->revision, 2);
}

TEST(FileWatchTest, SeesAnInPlaceWrite) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{}");
  SetMtime(path, kLongAgo);
  FileWatch watch(path);
  ASSERT_TRUE(watch.Check());
  TempDir::WriteInPlace(path, "{\"b\": 1}");
  EXPECT_EQ(TextOf(watch.Check()), "{\"b\": 1}");
}

// The write lands in the same timestamp tick as the read before it: inode,
// size and mtime look unchanged (the ctime too on a coarse clock), and only
// the read once the tick has passed sees it.
TEST(FileWatchTest, SeesAWriteInTheSameTimestampTickAsTheRead) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{\"v\": 1}");
  const timespec tick = Mtime(path);
  std::int64_t wall = CtimeNs(path);
  FileWatch watch(path, [&] { return wall; });
  ASSERT_EQ(TextOf(watch.Check()), "{\"v\": 1}");
  TempDir::WriteInPlace(path, "{\"v\": 2}");
  SetMtime(path, tick);
  wall += kSecond;
  EXPECT_EQ(TextOf(watch.Check()), "{\"v\": 2}");
}

// A read within a tick of the file's last change is repeated once, when
// the tick has surely passed, and not again.
TEST(FileWatchTest, ARecentlyChangedFileIsReadOnceMoreAfterTheTick) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{}");
  const std::int64_t changed = CtimeNs(path);
  std::int64_t wall = changed;
  FileWatch watch(path, [&] { return wall; });
  ASSERT_TRUE(watch.Check());
  wall = changed + kSecond / 2;
  EXPECT_FALSE(watch.Check());
  EXPECT_EQ(watch.reads(), 1U);
  wall = changed + kSecond;
  EXPECT_FALSE(watch.Check());  // read again, found equal
  EXPECT_EQ(watch.reads(), 2U);
  for (int i = 0; i < 100; ++i) {
    wall += kSecond;
    EXPECT_FALSE(watch.Check());
  }
  EXPECT_EQ(watch.reads(), 2U);
}

// Anyone may set a file's mtime into the future; it is read once all the
// same, however long it stays ahead of the clock.
TEST(FileWatchTest, AFileWithAnMtimeInTheFutureIsReadOnce) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{}");
  SetMtime(path, {Mtime(path).tv_sec + 365 * 24 * 3600, 0});
  std::int64_t wall = CtimeNs(path) + 2 * kSecond;  // the change itself has settled
  FileWatch watch(path, [&] { return wall; });
  ASSERT_TRUE(watch.Check());
  for (int i = 0; i < 1000; ++i) {
    wall += kSecond / 100;
    EXPECT_FALSE(watch.Check());
  }
  EXPECT_EQ(watch.reads(), 1U);
}

// The clock was set back an hour after the last change: the file's ctime
// is far ahead of it, which makes no read racy (a write now gets an
// earlier ctime, so stat() shows it).
TEST(FileWatchTest, ACtimeFarAheadOfTheClockIsNotReadAgain) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, "{}");
  std::int64_t wall = CtimeNs(path) - 3600 * kSecond;
  FileWatch watch(path, [&] { return wall; });
  ASSERT_TRUE(watch.Check());
  for (int i = 0; i < 100; ++i) {
    wall += kSecond / 10;
    EXPECT_FALSE(watch.Check());
  }
  EXPECT_EQ(watch.reads(), 1U);
}

TEST(FileWatchTest, ARewriteWithTheSameContentIsSilent) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, "{}");
  FileWatch watch(path);
  ASSERT_TRUE(watch.Check());
  dir.WriteByRename(path, "{}");
  EXPECT_FALSE(watch.Check());
  EXPECT_EQ(watch.reads(), 2U);  // read (new inode), found equal
}

TEST(FileWatchTest, AFailureIsReportedOnceAndTheFileIsDeliveredWhenBack) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, "{}");
  FileWatch watch(path);
  ASSERT_TRUE(watch.Check());
  std::filesystem::remove(path);
  const auto gone = watch.Check();
  ASSERT_TRUE(gone && !gone->ok());
  EXPECT_EQ(gone->status().code(), StatusCode::kNotFound);
  EXPECT_NE(gone->status().message().find(path), std::string::npos);
  EXPECT_FALSE(watch.Check());  // the same failure again: said already
  dir.WriteByRename(path, "{}");
  EXPECT_EQ(TextOf(watch.Check()), "{}");  // unchanged, but the receiver saw an error
}

TEST(FileWatchTest, RefusesAFileOverTheSizeBound) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  TempDir::WriteInPlace(path, std::string(config::kMaxConfigBytes + 1, ' '));
  FileWatch watch(path);
  const auto u = watch.Check();
  ASSERT_TRUE(u && !u->ok());
  EXPECT_EQ(u->status().code(), StatusCode::kResourceExhausted);
  TempDir::WriteInPlace(path, std::string(config::kMaxConfigBytes, ' '));
  const auto exact = watch.Check();
  ASSERT_TRUE(exact && exact->ok());
  EXPECT_EQ((*exact)->text.size(), config::kMaxConfigBytes);
}

TEST(FileWatchTest, RefusesWhatIsNotARegularFileWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir.File("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  FileWatch watch(fifo);
  const auto u = watch.Check();  // would block forever in open() without O_NONBLOCK
  ASSERT_TRUE(u && !u->ok());
  EXPECT_EQ(u->status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stormguard::config_sources
