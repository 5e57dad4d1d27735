#include "api/time.h"

#include <gtest/gtest.h>

#include "api/conditions.h"

namespace flotilla::api {
namespace {

TEST(TimeTest, ParsesAndFormatsRfc3339) {
  auto t = parseRfc3339("2026-11-01T10:00:00Z");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(formatRfc3339(*t), "2026-11-01T10:00:00Z");
  EXPECT_EQ(Clock::to_time_t(*t), 1793527200);
  EXPECT_EQ(parseRfc3339("2026-11-01T12:00:00+02:00"), t);
  EXPECT_EQ(parseRfc3339("2026-11-01T09:30:00-00:30"), t);
  auto micro = parseRfc3339("2026-11-01T10:00:00.250000Z");
  ASSERT_TRUE(micro.has_value());
  EXPECT_EQ(*micro - *t, std::chrono::milliseconds(250));
  for (const char* bad :
       {"", "2026-11-01", "2026-11-01 10:00:00Z", "2026-13-01T10:00:00Z", "2026-11-01T10:00:00",
        "2026-11-01T10:00:00.Z", "2026-11-01T10:00:00Zjunk"}) {
    EXPECT_FALSE(parseRfc3339(bad).has_value()) << bad;
  }
}

TEST(ConditionsTest, TransitionTimeOnlyMovesOnStatusChange) {
  std::vector<Condition> conditions;
  EXPECT_TRUE(setCondition(conditions, "Scheduled", "True", "Success", "", 1, "T1"));
  EXPECT_FALSE(setCondition(conditions, "Scheduled", "True", "Success", "", 1, "T2"));
  EXPECT_EQ(conditions[0].lastTransitionTime, "T1");
  EXPECT_TRUE(setCondition(conditions, "Scheduled", "True", "Success", "", 2, "T3"));
  EXPECT_EQ(conditions[0].lastTransitionTime, "T1");
  EXPECT_TRUE(setCondition(conditions, "Scheduled", "False", "NoClusterFit", "0/3", 2, "T4"));
  EXPECT_EQ(conditions[0].lastTransitionTime, "T4");
  EXPECT_EQ(findCondition(conditions, "Scheduled")->reason, "NoClusterFit");
  EXPECT_EQ(findCondition(conditions, "FullyApplied"), nullptr);
}

// Found by fuzz/quantity_fuzz.cc: a year past 2262 overflowed the nanosecond clock (UBSan).
TEST(TimeTest, YearsTheClockCannotHoldAreUnreadable) {
  EXPECT_FALSE(parseRfc3339("3027-01-01T00:00:00Z").has_value());
  EXPECT_FALSE(parseRfc3339("1000-01-01T00:00:00Z").has_value());
  ASSERT_TRUE(parseRfc3339("2261-12-31T23:59:59Z").has_value());
  EXPECT_EQ(formatRfc3339(*parseRfc3339("2261-12-31T23:59:59Z")), "2261-12-31T23:59:59Z");
}

}  // namespace
}  // namespace flotilla::api
