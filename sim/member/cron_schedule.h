// Standard five-field cron schedules (minute hour day-of-month month day-of-week: numbers, `*`,
// `*/n`, `a-b`, `a-b/n`, lists, month and weekday names; `@hourly`, `@daily`/`@midnight`,
// `@weekly`, `@monthly`, `@yearly`/`@annually`), in UTC, as a CronJob's spec.schedule.
#pragma once

#include <bitset>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace flotilla::sim {

class CronSchedule {
 public:
  // nullopt (and `error` set) when the text is not a schedule.
  static std::optional<CronSchedule> parse(std::string_view text, std::string* error = nullptr);

  // The first minute strictly after `after` that the schedule names (seconds are dropped).
  std::chrono::sys_seconds next(std::chrono::sys_seconds after) const;
  bool matches(std::chrono::sys_seconds minute) const;

 private:
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1-31
  std::bitset<13> months_;   // 1-12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool dayStar_ = false, weekdayStar_ = false;
};

}  // namespace flotilla::sim
