#include "api/time.h"

#include <charconv>
#include <cstdio>
#include <ctime>

namespace flotilla::api {
namespace {

bool number(std::string_view s, size_t pos, size_t len, int* out) {
  if (pos + len > s.size()) return false;
  auto [ptr, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, *out);
  return ec == std::errc() && ptr == s.data() + pos + len;
}

}  // namespace

std::optional<Clock::time_point> parseRfc3339(std::string_view s) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
      s[13] != ':' || s[16] != ':' || !number(s, 0, 4, &year) || !number(s, 5, 2, &month) ||
      !number(s, 8, 2, &day) || !number(s, 11, 2, &hour) || !number(s, 14, 2, &minute) ||
      !number(s, 17, 2, &second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  // Clock counts nanoseconds in 64 bits: 1677-09-21 to 2262-04-11. Outside whole years of that
  // (found by fuzz/quantity_fuzz.cc: year 3027 overflowed), a time is unreadable, not wrapped.
  if (year < 1678 || year > 2261) return std::nullopt;
  size_t pos = 19;
  std::chrono::nanoseconds fraction{0};
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int64_t scale = 100'000'000;
    size_t start = pos;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      fraction += std::chrono::nanoseconds((s[pos] - '0') * scale);
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  int offsetMinutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh = 0, om = 0;
    if (s.size() != pos + 6 || s[pos + 3] != ':' || !number(s, pos + 1, 2, &oh) ||
        !number(s, pos + 4, 2, &om)) {
      return std::nullopt;
    }
    offsetMinutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  const time_t t = timegm(&tm);
  return Clock::from_time_t(t) - std::chrono::minutes(offsetMinutes) +
         std::chrono::duration_cast<Clock::duration>(fraction);
}

std::string formatRfc3339(Clock::time_point t) {
  const time_t secs = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];  // room for any int the format could print
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace flotilla::api
