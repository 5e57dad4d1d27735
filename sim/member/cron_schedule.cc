#include "sim/member/cron_schedule.h"

#include <array>
#include <cctype>
#include <sstream>
#include <vector>

namespace flotilla::sim {

namespace {

// One field's values into `bits` (offset by `low`); false when malformed.
bool parseCronField(std::string_view field, int low, int high, const char* const* names,
                    std::vector<bool>& bits, bool& star) {
  auto number = [&](std::string_view text, int& out) {
    if (text.empty()) return false;
    if (names) {
      for (int i = 0; names[i]; ++i) {
        std::string_view name = names[i];
        if (text.size() == name.size() &&
            std::equal(text.begin(), text.end(), name.begin(),
                       [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
          out = i + low;
          return true;
        }
      }
    }
    out = 0;
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || out > 1000) return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  star = field == "*" || field == "?";
  size_t position = 0;
  while (position <= field.size()) {
    size_t comma = field.find(',', position);
    if (comma == std::string_view::npos) comma = field.size();
    std::string_view part = field.substr(position, comma - position);
    position = comma + 1;
    int step = 1;
    if (const size_t slash = part.find('/'); slash != std::string_view::npos) {
      if (!number(part.substr(slash + 1), step) || step < 1) return false;
      part = part.substr(0, slash);
    }
    int first = low, last = high;
    if (part == "*" || part == "?") {
    } else if (const size_t dash = part.find('-'); dash != std::string_view::npos) {
      if (!number(part.substr(0, dash), first) || !number(part.substr(dash + 1), last))
        return false;
    } else {
      if (!number(part, first)) return false;
      last = step > 1 ? high : first;  // "5/15": from 5 on
    }
    if (first < low || last > high || first > last) return false;
    for (int v = first; v <= last; v += step) bits[static_cast<size_t>(v)] = true;
    if (comma == field.size()) break;
  }
  return true;
}

const char* const kCronMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",  "jul",
                                   "aug", "sep", "oct", "nov", "dec", nullptr};
const char* const kCronWeekdays[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", nullptr};

}  // namespace

std::optional<CronSchedule> CronSchedule::parse(std::string_view text, std::string* error) {
  std::string spec(text);
  if (spec == "@yearly" || spec == "@annually") spec = "0 0 1 1 *";
  if (spec == "@monthly") spec = "0 0 1 * *";
  if (spec == "@weekly") spec = "0 0 * * 0";
  if (spec == "@daily" || spec == "@midnight") spec = "0 0 * * *";
  if (spec == "@hourly") spec = "0 * * * *";
  std::istringstream in(spec);
  std::vector<std::string> fields;
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() != 5) {
    if (error) *error = "expected exactly 5 fields, found " + std::to_string(fields.size());
    return std::nullopt;
  }
  CronSchedule s;
  std::vector<bool> bits(61);
  bool star = false;
  auto take = [&](size_t i, int low, int high, const char* const* names, auto& target,
                  bool* starOut) {
    bits.assign(61, false);
    if (!parseCronField(fields[i], low, high, names, bits, star)) return false;
    for (int v = low; v <= high; ++v)
      if (bits[static_cast<size_t>(v)])
        target.set(static_cast<size_t>(v == 7 && high == 7 ? 0 : v));
    if (starOut) *starOut = star;
    return true;
  };
  bool ok = take(0, 0, 59, nullptr, s.minutes_, nullptr) &&
            take(1, 0, 23, nullptr, s.hours_, nullptr) &&
            take(2, 1, 31, nullptr, s.days_, &s.dayStar_) &&
            take(3, 1, 12, kCronMonths, s.months_, nullptr) &&
            take(4, 0, 7, kCronWeekdays, s.weekdays_, &s.weekdayStar_);
  if (!ok) {
    if (error) *error = "unparseable schedule \"" + std::string(text) + "\"";
    return std::nullopt;
  }
  return s;
}

bool CronSchedule::matches(std::chrono::sys_seconds minute) const {
  using namespace std::chrono;
  const auto day = floor<days>(minute);
  const year_month_day ymd{day};
  const hh_mm_ss time{minute - day};
  const auto weekday = year_month_weekday{day}.weekday().c_encoding();
  if (!minutes_[static_cast<size_t>(time.minutes().count())] ||
      !hours_[static_cast<size_t>(time.hours().count())] ||
      !months_[static_cast<unsigned>(ymd.month())])
    return false;
  const bool dayOk = days_[static_cast<unsigned>(ymd.day())];
  const bool weekdayOk = weekdays_[weekday];
  // Both restricted: either matches (cron's rule); otherwise the restricted one decides.
  if (!dayStar_ && !weekdayStar_) return dayOk || weekdayOk;
  return dayOk && weekdayOk;
}

std::chrono::sys_seconds CronSchedule::next(std::chrono::sys_seconds after) const {
  using namespace std::chrono;
  auto t = floor<minutes>(after) + minutes(1);
  // At most five years of days (a schedule like "0 0 30 2 *" never matches).
  const auto limit = t + hours(24 * 366 * 5);
  while (t < limit) {
    const auto day = floor<days>(t);
    const year_month_day ymd{day};
    if (!months_[static_cast<unsigned>(ymd.month())]) {
      const auto firstOfNext = sys_days{(ymd.year() / ymd.month() / 1) + months(1)};
      t = time_point_cast<minutes>(firstOfNext);
      continue;
    }
    const auto weekday = year_month_weekday{day}.weekday().c_encoding();
    const bool dayOk = days_[static_cast<unsigned>(ymd.day())];
    const bool weekdayOk = weekdays_[weekday];
    const bool dayMatches =
        !dayStar_ && !weekdayStar_ ? (dayOk || weekdayOk) : (dayOk && weekdayOk);
    if (!dayMatches) {
      t = time_point_cast<minutes>(day + days(1));
      continue;
    }
    const hh_mm_ss time{t - day};
    if (!hours_[static_cast<size_t>(time.hours().count())]) {
      t = floor<hours>(t) + hours(1);
      continue;
    }
    if (!minutes_[static_cast<size_t>(time.minutes().count())]) {
      t += minutes(1);
      continue;
    }
    return time_point_cast<seconds>(t);
  }
  return sys_seconds::max();
}

}  // namespace flotilla::sim
