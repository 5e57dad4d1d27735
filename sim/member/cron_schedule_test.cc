#include "sim/member/cron_schedule.h"

#include <gtest/gtest.h>

#include "api/time.h"

namespace flotilla::sim {
namespace {

std::chrono::sys_seconds at(const char* text) {
  return std::chrono::time_point_cast<std::chrono::seconds>(*api::parseRfc3339(text));
}

TEST(CronSchedule, FieldsRangesStepsListsAndNames) {
  auto every5 = CronSchedule::parse("*/5 * * * *");
  ASSERT_TRUE(every5);
  EXPECT_EQ(every5->next(at("2026-11-22T10:00:00Z")), at("2026-11-22T10:05:00Z"));
  EXPECT_EQ(every5->next(at("2026-11-22T10:03:30Z")), at("2026-11-22T10:05:00Z"));
  auto workdays = CronSchedule::parse("30 9-17/4 * * mon-fri");
  ASSERT_TRUE(workdays);
  // 2026-11-22 is a Sunday.
  EXPECT_EQ(workdays->next(at("2026-11-22T10:00:00Z")), at("2026-11-23T09:30:00Z"));
  EXPECT_EQ(workdays->next(at("2026-11-23T09:30:00Z")), at("2026-11-23T13:30:00Z"));
  auto list = CronSchedule::parse("0,15 0 1,15 jan,jul *");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->next(at("2026-11-22T10:00:00Z")), at("2027-01-01T00:00:00Z"));
  EXPECT_EQ(CronSchedule::parse("@hourly")->next(at("2026-11-22T10:00:00Z")),
            at("2026-11-22T11:00:00Z"));
  // Both day fields restricted: either matches.
  auto either = CronSchedule::parse("0 0 1 * 1");
  EXPECT_EQ(either->next(at("2026-11-22T10:00:00Z")), at("2026-11-23T00:00:00Z"));
  std::string error;
  EXPECT_FALSE(CronSchedule::parse("* * *", &error));
  EXPECT_EQ(error, "expected exactly 5 fields, found 3");
  EXPECT_FALSE(CronSchedule::parse("61 * * * *"));
  EXPECT_FALSE(CronSchedule::parse("*/0 * * * *"));
}

}  // namespace
}  // namespace flotilla::sim
