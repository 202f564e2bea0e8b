#include "stormguard/config_sources/file_source.h"

#include <gtest/gtest.h>

#include "sink_recorder.h"
#include "temp_dir.h"

namespace stormguard::config_sources {
namespace {

using std::chrono::milliseconds;
using testkit::SinkRecorder;
using testkit::TempDir;

// A source on a ManualClock: polls happen when the test moves the clock.
struct ManualSetup {
  ManualClock clock{TimePoint(std::chrono::hours(1)), ManualClock::SleepMode::kBlockOnSleep};
  std::shared_ptr<TimerService> timers = TimerService::Create(clock, {.background_thread = false}).value();
  std::shared_ptr<Executor> executor = Executor::Create({.threads = 1, .timers = timers.get()}).value();
};

TEST(FileSourceTest, StartDeliversTheFileBeforeReturning) {
  TempDir dir;
  dir.WriteByRename(dir.File("sg.json"), "{}");
  ManualSetup m;
  SinkRecorder recorder;
  auto source = FileSource::Start({.path = dir.File("sg.json"), .executor = m.executor}, recorder.sink());
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  const auto entries = recorder.entries();
  ASSERT_EQ(entries.size(), 1U);
  EXPECT_EQ(entries[0].update->text, "{}");
}

TEST(FileSourceTest, PollsOncePerIntervalOfItsClock) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  dir.WriteByRename(path, "{\"v\": 1}");
  ManualSetup m;
  SinkRecorder recorder;
  auto source = FileSource::Start({.path = path, .poll_interval = std::chrono::seconds(1), .executor = m.executor},
                                  recorder.sink());
  ASSERT_TRUE(source.ok());
  dir.WriteByRename(path, "{\"v\": 2}");
  m.clock.Advance(milliseconds(999));
  EXPECT_FALSE(recorder.WaitForCount(2, milliseconds(50)));  // not yet due
  m.clock.Advance(milliseconds(1));
  ASSERT_TRUE(recorder.WaitForText("{\"v\": 2}"));
  dir.WriteByRename(path, "{\"v\": 3}");
  m.clock.Advance(std::chrono::seconds(1));
  ASSERT_TRUE(recorder.WaitForText("{\"v\": 3}"));
  (*source)->Stop();
  EXPECT_EQ(recorder.entries().size(), 3U);
}

TEST(FileSourceTest, StopEndsTheWaitAtOnce) {
  TempDir dir;
  dir.WriteByRename(dir.File("sg.json"), "{}");
  ManualSetup m;
  SinkRecorder recorder;
  auto source =
      FileSource::Start({.path = dir.File("sg.json"), .poll_interval = std::chrono::hours(1), .executor = m.executor},
                        recorder.sink());
  ASSERT_TRUE(source.ok());
  (*source)->Stop();  // the task sleeps an hour of a clock nobody moves: only stop wakes it
  (*source)->Stop();  // idempotent
  dir.WriteByRename(dir.File("sg.json"), "{\"v\": 2}");
  m.clock.Advance(std::chrono::hours(2));
  EXPECT_FALSE(recorder.WaitForCount(2, milliseconds(50)));
}

TEST(FileSourceTest, NamesEveryBadOption) {
  SinkRecorder recorder;
  auto bad = FileSource::Start({.path = "", .poll_interval = Duration::zero()}, recorder.sink());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("path: must not be empty"), std::string::npos);
  EXPECT_NE(bad.status().message().find("poll_interval: must be in [1ms, 1h]"), std::string::npos);
  auto no_sink = FileSource::Start({.path = "/x"}, nullptr);
  ASSERT_FALSE(no_sink.ok());
  EXPECT_NE(no_sink.status().message().find("sink: must not be empty"), std::string::npos);
}

TEST(FileSourceTest, AMissingFileIsReportedAndPickedUpWhenWritten) {
  TempDir dir;
  const std::string path = dir.File("sg.json");
  ManualSetup m;
  SinkRecorder recorder;
  auto source = FileSource::Start({.path = path, .executor = m.executor}, recorder.sink());
  ASSERT_TRUE(source.ok());
  ASSERT_EQ(recorder.entries().size(), 1U);
  EXPECT_EQ(recorder.entries()[0].update.status().code(), StatusCode::kNotFound);
  dir.WriteByRename(path, "{}");
  m.clock.Advance(std::chrono::seconds(1));
  EXPECT_TRUE(recorder.WaitForText("{}"));
}

}  // namespace
}  // namespace stormguard::config_sources
