#include "api/duration.h"

#include <cstdint>

namespace flotilla::api {
namespace {

struct Unit {
  std::string_view name;
  int64_t nanos;
};
// Longest names first so "ms" is not read as "m" followed by garbage.
constexpr Unit kUnits[] = {{"ns", 1},
                           {"us", 1'000},
                           {"\xc2\xb5s", 1'000},  // µs (U+00B5)
                           {"\xce\xbcs", 1'000},  // μs (U+03BC)
                           {"ms", 1'000'000},
                           {"s", 1'000'000'000},
                           {"m", 60'000'000'000},
                           {"h", 3'600'000'000'000}};

}  // namespace

Result<Duration> parseDuration(std::string_view text) {
  const std::string quoted = "\"" + std::string(text) + "\"";
  auto fail = [&](const std::string& why) {
    return badRequest("time: invalid duration " + quoted + (why.empty() ? "" : ": " + why));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return fail("");
  __int128 total = 0;  // nanoseconds
  while (!s.empty()) {
    // number: digits [ '.' digits ]
    __int128 whole = 0;
    __int128 frac = 0;
    __int128 fracScale = 1;
    size_t i = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      whole = whole * 10 + (s[i] - '0');
      if (whole > INT64_MAX) return fail("overflow");
      ++i;
      digits = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        if (fracScale < 1'000'000'000'000'000'000) {
          frac = frac * 10 + (s[i] - '0');
          fracScale *= 10;
        }
        ++i;
        digits = true;
      }
    }
    if (!digits) return fail("");
    s.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      if (s.starts_with(u.name) && (!unit || u.name.size() > unit->name.size())) unit = &u;
    }
    if (!unit) {
      return fail(s.empty() ? "missing unit"
                            : "unknown unit \"" + std::string(s.substr(0, 1)) + "\"");
    }
    s.remove_prefix(unit->name.size());
    total += whole * unit->nanos + frac * unit->nanos / fracScale;
    if (total > INT64_MAX) return fail("overflow");
  }
  return Duration(static_cast<int64_t>(negative ? -total : total));
}

std::string formatDuration(Duration d) {
  int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? -static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  auto fraction = [](uint64_t value, uint64_t scale) {
    // value / scale with trailing zeros of the fraction removed.
    std::string out = std::to_string(value / scale);
    uint64_t rem = value % scale;
    if (rem == 0) return out;
    std::string digits = std::to_string(rem + scale).substr(1);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    return out + "." + digits;
  };
  if (u < 1'000) return sign + std::to_string(u) + "ns";
  if (u < 1'000'000) return sign + fraction(u, 1'000) + "\xc2\xb5s";
  if (u < 1'000'000'000) return sign + fraction(u, 1'000'000) + "ms";
  std::string out;
  const uint64_t hours = u / 3'600'000'000'000;
  u %= 3'600'000'000'000;
  const uint64_t minutes = u / 60'000'000'000;
  u %= 60'000'000'000;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  out += fraction(u, 1'000'000'000) + "s";
  return sign + out;
}

}  // namespace flotilla::api
