// FileSource on the real clock: an operator's atomic rename and an in-place
// write are both picked up by the poll, within a bounded wait.
#include <gtest/gtest.h>

#include "sink_recorder.h"
#include "stormguard/config_sources/file_source.h"
#include "temp_dir.h"

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;

TEST(FileSourceIntegrationTest, PicksUpARenameAndAnInPlaceWriteOnTheRealClock) {
  testkit::TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, R"({"destinations": {}})");
  testkit::SinkRecorder recorder;
  auto source = FileSource::Start({.path = path, .poll_interval = milliseconds(10)}, recorder.sink());
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  ASSERT_TRUE(recorder.WaitForText(R"({"destinations": {}})"));
  dir.WriteByRename(path, R"({"destinations": {"a": {}}})");
  ASSERT_TRUE(recorder.WaitForText(R"({"destinations": {"a": {}}})", milliseconds(2000)));
  testkit::TempDir::WriteInPlace(path, R"({"destinations": {"b": {}}})");
  ASSERT_TRUE(recorder.WaitForText(R"({"destinations": {"b": {}}})", milliseconds(2000)));
  (*source)->Stop();
  // Each version once. A poll may also catch the in-place write half done
  // (that is why operators rename): the receiver refuses that text, and the
  // next poll brings the whole file.
  const auto entries = recorder.entries();
  ASSERT_GE(entries.size(), 3U);
  EXPECT_EQ(entries[1].update->text, R"({"destinations": {"a": {}}})");
  EXPECT_EQ(entries.back().update->text, R"({"destinations": {"b": {}}})");
  EXPECT_EQ(entries.back().update->revision, static_cast<std::int64_t>(entries.size()));
}

}  // namespace
}  // namespace stormguard::config_sources
