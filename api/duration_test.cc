#include "api/duration.h"

#include <gtest/gtest.h>

namespace flotilla::api {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(DurationTest, ParsesGoDurations) {
  EXPECT_EQ(parseDuration("60s").value(), seconds(60));
  EXPECT_EQ(parseDuration("1m").value(), minutes(1));
  EXPECT_EQ(parseDuration("1m30s").value(), seconds(90));
  EXPECT_EQ(parseDuration("1.5h").value(), minutes(90));
  EXPECT_EQ(parseDuration("300ms").value(), milliseconds(300));
  EXPECT_EQ(parseDuration("0").value(), seconds(0));
  EXPECT_EQ(parseDuration("2h45m0.5s").value(), seconds(2 * 3600 + 45 * 60) + milliseconds(500));
  EXPECT_EQ(parseDuration("-5s").value(), seconds(-5));
  EXPECT_EQ(parseDuration("10us").value(), std::chrono::microseconds(10));
}

TEST(DurationTest, RejectsMalformed) {
  for (const char* bad : {"", "1", "s", "1d", "1.5.s", "abc", "1m-1s", "--1s", "9999999999999h"}) {
    auto d = parseDuration(bad);
    EXPECT_FALSE(d.has_value()) << bad;
  }
  auto d = parseDuration("5x");
  ASSERT_FALSE(d.has_value());
  EXPECT_EQ(d.error().message, "time: invalid duration \"5x\": unknown unit \"x\"");
}

TEST(DurationTest, FormatsLikeGo) {
  EXPECT_EQ(formatDuration(seconds(90)), "1m30s");
  EXPECT_EQ(formatDuration(seconds(0)), "0s");
  EXPECT_EQ(formatDuration(milliseconds(1500)), "1.5s");
  EXPECT_EQ(formatDuration(milliseconds(250)), "250ms");
  EXPECT_EQ(formatDuration(std::chrono::hours(2)), "2h0m0s");
}

}  // namespace
}  // namespace flotilla::api
